# name: compact-moves
# The idle-time compactor runs twice: once over a write that is not yet
# durable, once after an fsync. Every move is committed before the old
# copy is freed, so a crash anywhere recovers a state of the history. The
# setup leaves holes (the odd F/N) among live blocks for the moves to fill.
mkdir F
creat F/0
write F/0 0 16384
creat F/1
write F/1 0 16384
creat F/2
write F/2 0 16384
creat F/3
write F/3 0 16384
creat F/4
write F/4 0 16384
creat F/5
write F/5 0 16384
sync
mkdir A
creat A/log
write A/log 0 8192
sync
creat F/6
write F/6 0 16384
creat F/7
write F/7 0 16384
creat F/8
write F/8 0 16384
creat F/9
write F/9 0 16384
creat F/10
write F/10 0 16384
creat F/11
write F/11 0 16384
sync
unlink F/1
unlink F/3
unlink F/5
unlink F/7
unlink F/9
unlink F/11
sync
---
write A/log 8192 4096
compact 40
fsync A/log
write A/log 0 3000
fdatasync A/log
compact
