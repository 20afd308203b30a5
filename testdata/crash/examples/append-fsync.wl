# name: append-fsync
# Appends, unaligned, each made durable by fsync or fdatasync; then an
# unforced append that a crash may lose (as a whole, never torn).
mkdir A
creat A/log
---
write A/log 0 1000
fsync A/log
write A/log 1000 5000
fdatasync A/log
write A/log 6000 300
