# name: attrs
# Extended attributes, mode, fallocate and truncate, persisted by fsync of
# the file, of its parent and by sync.
mkdir A
creat A/foo
write A/foo 0 10000
setxattr A/foo user.k v0
---
setxattr A/foo user.k changed
setxattr A/foo user.new v1
fsync A/foo
removexattr A/foo user.k
chmod A/foo 600
fsync A
falloc A/foo 0 40000
truncate A/foo 3000
falloc A/foo 0 20000 keep
sync
