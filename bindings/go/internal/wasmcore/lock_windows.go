//go:build windows

package wasmcore

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes LockFileEx's exclusive lock on the first byte without
// waiting, the lock the native library takes on the same file.
func tryLock(f *os.File) int32 {
	var overlapped windows.Overlapped
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK | windows.LOCKFILE_FAIL_IMMEDIATELY)
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &overlapped)
	switch {
	case err == nil:
		return locked
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return busy
	default:
		return unusable
	}
}
