# varmail personality for `vlfs bench peers` users who have filebench:
# the parameters of filebench's own workloads/varmail.f (a mail server:
# delete, create+append+fsync, open+read+append+fsync, open+read), which
# the Go driver bench/peers_varmail.go reproduces without filebench.
#
#   filebench -f bench/filebench/varmail.f     (after: set $dir=MOUNTPOINT)

set $dir=/tmp
set $nfiles=1000
set $meandirwidth=1000000
set $meanfilesize=16k
set $nthreads=16
set $iosize=1m
set $meanappendsize=16k

define fileset name=bigfileset,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=80

define process name=filereader,instances=1
{
  thread name=filereaderthread,memsize=10m,instances=$nthreads
  {
    flowop deletefile name=deletefile1,filesetname=bigfileset
    flowop createfile name=createfile2,filesetname=bigfileset,fd=1
    flowop appendfilerand name=appendfilerand2,iosize=$meanappendsize,fd=1
    flowop fsync name=fsyncfile2,fd=1
    flowop closefile name=closefile2,fd=1
    flowop openfile name=openfile3,filesetname=bigfileset,fd=1
    flowop readwholefile name=readfile3,fd=1,iosize=$iosize
    flowop appendfilerand name=appendfilerand3,iosize=$meanappendsize,fd=1
    flowop fsync name=fsyncfile3,fd=1
    flowop closefile name=closefile3,fd=1
    flowop openfile name=openfile4,filesetname=bigfileset,fd=1
    flowop readwholefile name=readfile4,fd=1,iosize=$iosize
    flowop closefile name=closefile4,fd=1
  }
}

echo "vlfs varmail personality (filebench varmail parameters) loaded"
run 60
