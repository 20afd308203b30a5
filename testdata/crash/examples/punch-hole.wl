# name: punch-hole
# Holes punched and ranges zeroed in a file written across the direct and
# indirect blocks: each durable at its fsync, the last one unforced (a
# crash shows it whole or not at all, never some of its blocks).
mkdir A
creat A/f
write A/f 0 90000
---
falloc A/f 4096 12288 punch
fsync A/f
falloc A/f 40000 30000 punch
write A/f 45056 4096
fdatasync A/f
falloc A/f 100 200 zero-keep
falloc A/f 88000 10000 zero
sync
falloc A/f 0 90000 punch
