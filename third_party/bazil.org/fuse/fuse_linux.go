package fuse

// Maximum file write size we are prepared to receive from the kernel.
//
// vlfs patch: 1 MiB, asked for with FUSE_MAX_PAGES at INIT (256 pages of
// 4 KiB, the kernel's default fs.fuse.max_pages_limit). Upstream's 128 KiB
// is the kernel's limit without FUSE_MAX_PAGES (FUSE_MAX_PAGES_PER_REQ=32);
// a kernel without it still caps requests there.
const maxWrite = 1 << 20
