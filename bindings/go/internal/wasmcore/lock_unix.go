//go:build unix && !solaris && !aix

package wasmcore

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes flock(2)'s exclusive lock without waiting, the lock the
// native library takes on the same file.
func tryLock(f *os.File) int32 {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return locked
	case errors.Is(err, syscall.EWOULDBLOCK):
		return busy
	default:
		return unusable
	}
}
