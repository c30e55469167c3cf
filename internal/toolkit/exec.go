package toolkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gpuc/backends/llvm"
	"gpuc/internal/driver"
	"gpuc/internal/version"
)

// Note [Exec cache]
//
// `gpuc exec FILE` builds FILE into $GPUC_CACHE/exec (else
// $XDG_CACHE_HOME/gpuc/exec or ~/.cache/gpuc/exec, the directory that
// run-time specialization uses too) under a key that hashes gpuc's version
// and commit, the toolchain, the options, and the contents of FILE and of
// the files its options name (the CHR query, static data, the TRS input
// term beside it). Any change to those builds anew; the old entry stays
// until the cache is cleared. An entry is the executable itself, written
// under a temporary name and renamed, so that concurrent runs never see a
// half-written one.
//
// `gpuc build FILE -o PROG` goes through the same cache (Install): it
// builds into the cache, or finds the entry there, and copies it to
// PROG. So a build followed by an exec of the same file, or a second
// build, runs no compiler (a hybrid TRS program takes seconds to build).
// Where the cache cannot be made (no home directory, a read-only one),
// build writes PROG directly.

// CacheDir is the exec cache's directory.
func CacheDir() (string, error) {
	if d := os.Getenv("GPUC_CACHE"); d != "" {
		return filepath.Join(d, "exec"), nil
	}
	d, err := os.UserCacheDir() // $XDG_CACHE_HOME or ~/.cache
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "gpuc", "exec"), nil
}

// Cached returns the executable for file, building it if the cache has
// none, and whether it was built now.
func Cached(file string, o Options) (exe string, built bool, err error) {
	// Auto's choice depends on the module and on the tools at hand
	// (Resolve); the key names the tools, and Build resolves.
	if o.Toolchain == "" || o.Toolchain == Auto {
		o.Toolchain = fmt.Sprintf("%s:hybrid=%t:nvcc=%t", Auto, hybridTools(), llvm.FindTool("nvcc") != "")
	}
	key, err := cacheKey(file, o)
	if err != nil {
		return "", false, err
	}
	dir, err := CacheDir()
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	exe = filepath.Join(dir, key)
	if fi, err := os.Stat(exe); err == nil && fi.Mode().IsRegular() {
		return exe, false, nil
	}
	tmp := fmt.Sprintf("%s.tmp%d", exe, os.Getpid())
	defer os.Remove(tmp)
	if strings.HasPrefix(o.Toolchain, Auto+":") {
		o.Toolchain = Auto
	}
	if err := Build(file, tmp, o); err != nil {
		return "", false, err
	}
	return exe, true, os.Rename(tmp, exe)
}

// cacheKey hashes what the executable depends on (Note [Exec cache]).
func cacheKey(file string, o Options) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "gpuc %s\x00%s\x00%s\x00checks=%t\x00", version.Full(), o.Toolchain, o.Arch, !o.NoChecks)
	files := []string{file}
	// The input flags, and the contents of every file that one names
	// (--query FILE, --static NAME=FILE or NAME=@FILE).
	for _, a := range o.Frontend {
		fmt.Fprintf(h, "%s\x00", a)
		_, v, _ := strings.Cut(a, "=")
		for _, p := range []string{v, afterEq(v)} {
			p = strings.TrimPrefix(p, "@")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				files = append(files, p)
				break
			}
		}
	}
	files = append(files, driver.Beside(file)...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%d\x00", len(b))
		h.Write(b)
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return base + "-" + hex.EncodeToString(h.Sum(nil))[:32], nil
}

// afterEq is what follows the first '=' of s, or "".
func afterEq(s string) string {
	_, v, _ := strings.Cut(s, "=")
	return v
}

// Install builds file to out through the cache (Note [Exec cache]), and
// reports whether it was built now rather than found there.
func Install(file, out string, o Options) (built bool, err error) {
	if dir, err := CacheDir(); err != nil || os.MkdirAll(dir, 0o755) != nil {
		return true, Build(file, out, o) // no cache to be had
	}
	exe, built, err := Cached(file, o)
	if err != nil {
		return built, err
	}
	return built, copyExe(exe, out)
}

// copyExe copies the executable src to dst, replacing dst whole (through
// a temporary file and a rename, so that a running dst is not changed
// under it).
func copyExe(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp%d", dst, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // against the umask
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
