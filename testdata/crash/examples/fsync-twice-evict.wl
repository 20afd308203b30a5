# name: fsync-twice-evict
# A repeated fsync with nothing changed in between, with metadata written
# out between commits (mode evict). creat A/x writes the inode block out
# early; the write dirties it again, so the fsync commits a new copy and
# frees the early one, which that commit's group still covers. The second
# fsync commits only that free (no log group). creat A/y must not reuse the
# block: recovery would find the group's cover changed, discard the durable
# commit and recover the setup (lost-persisted).
mkdir A
creat A/foo
---
creat A/x
write A/foo 0 100
fsync A/foo
fsync A/foo
creat A/y
