# name: tmpfile
# Files made unnamed (O_TMPFILE) and named by link: the first is made
# durable by an fsync of its directory; the second replaces nothing and is
# never synced, so a crash may lose it (name and inode together, never a
# name without its data). The mount after a crash frees any inode left
# with no name.
mkdir A
---
tmpfile A/first 6000
fsync A
tmpfile A/second 70000
write A/first 0 100
