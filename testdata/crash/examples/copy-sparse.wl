# name: copy-sparse
# copy_file_range of a sparse file at the same place in the block, over a
# destination full of data: the destination's blocks over the source's
# holes are freed in the same step as the data is copied. Each copy is
# durable at its fsync; the last is unforced (whole or not at all).
mkdir A
creat A/src
creat A/dst
write A/src 0 4096
write A/src 40960 5000
write A/dst 0 90000
---
copy A/src 0 50000 A/dst 0
fsync A/dst
copy A/src 4096 40000 A/dst 53248
fdatasync A/dst
copy A/src 0 46000 A/dst 8192
