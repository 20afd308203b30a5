package bench

// Averaging over seeds (bench updates and breakdown --seeds). A point of
// a simulated bench is deterministic for its seed, but the layout a seed's
// random updates leave moves a point by up to 13 % (st19101 eager at 80 %:
// 0.78-0.96 ms over seeds 1-24), enough to flip a ratio against a target.
// Averaging a few seeds gives a figure to compare with, and stays
// deterministic.

// seedPoint runs one point with the given seed.
type seedPoint func(seed int64) (map[string]any, error)

// averageSeeds runs point for seeds seed, seed+1, ... (n of them, at least
// one) and returns the mean row: every numeric column averaged (as
// float64), the rest (placement, and the keys in fixed) as the first
// seed's.
func averageSeeds(seed int64, n int, point seedPoint) (map[string]any, error) {
	var rows []map[string]any
	for i := range max(n, 1) {
		row, err := point(seed + int64(i))
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if len(rows) == 1 {
		return rows[0], nil // as a single run reports it, types and all
	}
	out := rows[0]
	for k, v := range out {
		if fixedColumns[k] {
			continue
		}
		if !isNumber(v) {
			continue
		}
		var sum float64
		for _, r := range rows {
			sum += asFloat(r[k])
		}
		out[k] = sum / float64(len(rows))
	}
	return out, nil
}

// fixedColumns name a point rather than measure it.
var fixedColumns = map[string]bool{"utilization": true, "fs_version": true}

// isNumber reports whether a column holds a number (asFloat reads it).
func isNumber(v any) bool {
	switch v.(type) {
	case float64, int, int64:
		return true
	}
	return false
}
