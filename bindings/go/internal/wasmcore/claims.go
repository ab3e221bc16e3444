package wasmcore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The claim files the core opened, by handle, for the whole process: a file
// stays open while its claim is held, and the operating system releases its
// lock when the process dies, as it does a native holder's.
var claims struct {
	sync.Mutex
	files map[int32]*os.File
	next  int32
}

// Results of Xclaim_lock, as the core reads them.
const (
	locked   = 0
	busy     = 1
	unusable = 2
)

// Results of Xclaim_open besides a handle.
const (
	openUnwritable = -1
	openLinked     = -2
	openRelative   = -3
)

func claimFile(handle int32) *os.File {
	claims.Lock()
	defer claims.Unlock()
	return claims.files[handle]
}

// Xclaim_open opens the claim file at path as the native library's claim.rs
// does: the directory is made sticky and world-writable like /tmp when this
// process creates it, a file this process creates is made writable by all,
// an existing file is opened without O_CREAT (Linux's protected_regular
// refuses O_CREAT on another user's file in a sticky directory), and a
// symbolic link, as the directory or the file, is refused.
func (h *host) Xclaim_open(p, n int32) int32 {
	// The path as the core joined it, not cleaned: `..` is the system's to
	// resolve (through links), as it is for a native claim, and every later
	// operation names the file by this same path.
	path := filepath.FromSlash(string(h.bytes(p, n)))
	if !filepath.IsAbs(path) {
		return openRelative
	}
	dir := path[:max(strings.LastIndexByte(path, filepath.Separator), 1)]
	switch info, err := os.Lstat(dir); {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		return openLinked
	case err != nil:
		if os.MkdirAll(dir, 0o777) != nil {
			return openUnwritable
		}
		if d, err := os.Open(dir); err == nil {
			_ = d.Chmod(fs.ModeSticky | 0o777) // through the handle, never a path a link could redirect
			_ = d.Close()
		}
	}
	for {
		if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return openLinked
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			if errors.Is(err, fs.ErrExist) {
				continue // another process was first
			}
			if err == nil {
				_ = f.Chmod(0o666) // best effort: the umask took bits away
			}
		}
		if err != nil {
			return openUnwritable
		}
		claims.Lock()
		defer claims.Unlock()
		if claims.files == nil {
			claims.files = map[int32]*os.File{}
		}
		claims.next++
		claims.files[claims.next] = f
		return claims.next
	}
}

func (h *host) Xclaim_lock(handle int32) int32 {
	f := claimFile(handle)
	if f == nil {
		return unusable
	}
	return tryLock(f)
}

// Xclaim_names is 1 when path still names the open claim, not a file
// created in its place.
func (h *host) Xclaim_names(handle, p, n int32) int32 {
	f := claimFile(handle)
	if f == nil {
		return 0
	}
	named, err1 := os.Stat(string(h.bytes(p, n)))
	open, err2 := f.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(named, open) {
		return 0
	}
	return 1
}

// Xclaim_read reads the record through the locked handle itself (on Windows
// another handle cannot read a locked region).
func (h *host) Xclaim_read(handle, buf, capacity int32) int32 {
	f := claimFile(handle)
	if f == nil {
		return -1
	}
	read, err := f.ReadAt(h.bytes(buf, capacity), 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return -1
	}
	return int32(read)
}

// Xclaim_write rewrites the claim from its first byte: the new record first,
// then the length, so a holder killed in between leaves a record that still
// parses.
func (h *host) Xclaim_write(handle, buf, n int32) int32 {
	f := claimFile(handle)
	if f == nil {
		return -1
	}
	if _, err := f.WriteAt(h.bytes(buf, n), 0); err != nil || f.Truncate(int64(n)) != nil {
		return -1
	}
	return 0
}

// Xclaim_close closes the claim, which releases its lock.
func (h *host) Xclaim_close(handle int32) {
	claims.Lock()
	f := claims.files[handle]
	delete(claims.files, handle)
	claims.Unlock()
	if f != nil {
		_ = f.Close()
	}
}

// Xclaim_peek reads another process's claim by path, for the holder's pid in a refusal.
func (h *host) Xclaim_peek(p, n, buf, capacity int32) int32 {
	f, err := os.Open(string(h.bytes(p, n)))
	if err != nil {
		return -1
	}
	defer f.Close()
	read, err := io.ReadFull(f, h.bytes(buf, capacity))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return -1
	}
	return int32(read)
}
