// Package disk owns the mechanics of the simulated disk under the Virtual
// Log Disk: the geometry (zones, cylinders, surfaces, sectors, skews), the
// timing of one request (controller overhead, seek, head switch, write
// settle, rotational wait, media transfer), the presets with their published
// sources, the JSON model format, and the analytical models of the
// virtual-log paper (formulas 1-13) and of Carson and Setia (c*, formula 10).
//
// The package is pure computation: a Model is a value, a Layout is an
// immutable block-granular view of a Model, and nothing here keeps
// package-level mutable state or locks. Time is simulated milliseconds;
// the platter's angular position at simulated time t is frac(t/RotationMs),
// so every head position is a function of the clock.
//
// See docs/disk-model.md for the model, the presets and their sources.
package disk
