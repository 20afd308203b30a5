# name: rename-atomic
# Atomic replace: write a new version under a temporary name, fsync it,
# rename it over the old file, fsync the directory. Every crash state must
# show the old or the new A/foo, never both names and never neither.
mkdir A
creat A/foo
write A/foo 0 8192
---
creat A/foo.tmp
write A/foo.tmp 0 12000
fsync A/foo.tmp
rename A/foo.tmp A/foo
fsync A
