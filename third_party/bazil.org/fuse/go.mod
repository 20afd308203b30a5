module bazil.org/fuse

go 1.19

require golang.org/x/sys v0.4.0
