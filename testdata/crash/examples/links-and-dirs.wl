# name: links-and-dirs
# Hard links across directories, a symlink, an unlink that leaves one link,
# a new directory, each persisted a different way.
mkdir A
mkdir B
creat A/foo
write A/foo 0 4096
---
link A/foo B/bar
fsync B
symlink ../A/foo B/sym
unlink A/foo
fsync B/bar
mkdir A/C
rename B/sym A/C/sym
sync
