package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/secret"
)

// secrets holds the provider keys and tokens salve found in its own
// environment. The commands that run a repository's build (heal, exec, fix)
// take them out of the process environment before anything else runs, so a
// build under --isolation none cannot read them from /proc/<salve>/environ,
// and hand them on explicitly to the parts that need one: the llm tier, the
// GitHub CI monitor, the aider tier.
type secrets struct {
	vals map[string]string
}

// takeSecrets moves every variable for which isSecret is true out of the
// process environment, except those named in keep (the user asked for them
// to reach the build, so hiding them from salve's own environment would
// protect nothing). An error means the kernel's copy could not be cleared:
// the secrets are still out of the environment children get.
func takeSecrets(isSecret func(string) bool, keep []string) (*secrets, error) {
	s := &secrets{vals: map[string]string{}}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !isSecret(k) || slices.Contains(keep, k) {
			continue
		}
		s.vals[k] = strings.Clone(v)
		_ = os.Unsetenv(k) // fails only for an invalid name, which Environ never gives
	}
	return s, wipeBlock(s.vals)
}

// envBlock returns the address range of the environment block the kernel
// gave the process (fields env_start and env_end of /proc/self/stat), which
// is what /proc/<pid>/environ shows, or zeros when it cannot be read.
func envBlock() (start, end uintptr) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0
	}
	// After "pid (comm)" come fields 3 onwards; env_start and env_end are
	// fields 50 and 51.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 49 {
		return 0, 0
	}
	s, err1 := strconv.ParseUint(f[47], 10, 64)
	e, err2 := strconv.ParseUint(f[48], 10, 64)
	if err1 != nil || err2 != nil || s >= e {
		return 0, 0
	}
	return uintptr(s), uintptr(e)
}

// wipeBlock zeroes, in the kernel's environment block of the process
// (what /proc/<pid>/environ shows), every KEY=VALUE entry whose key is in
// names. Unsetenv only forgets a variable inside Go: the runtime copied the
// block at start-up, and the block itself still holds it. The block is read
// and written through /proc/self/mem, entry by entry; nothing outside it is
// touched.
func wipeBlock(names map[string]string) error {
	start, end := envBlock()
	if start == 0 || len(names) == 0 {
		return nil
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return err
	}
	off := 0
	for _, entry := range bytes.Split(block, []byte{0}) {
		k, _, ok := bytes.Cut(entry, []byte("="))
		if _, secret := names[string(k)]; ok && secret {
			if _, err := mem.WriteAt(make([]byte, len(entry)), int64(start)+int64(off)); err != nil {
				return err
			}
		}
		off += len(entry) + 1
	}
	return nil
}

// getenv reads a variable: a secret from memory, anything else from the
// process environment.
func (s *secrets) getenv(k string) string {
	if s != nil {
		if v, ok := s.vals[k]; ok {
			return v
		}
	}
	return os.Getenv(k)
}

// values returns the secret values taken out of the environment, for a
// masker: a build that finds one anyway (in a file, say) must not print it.
func (s *secrets) values() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.vals))
	for _, v := range s.vals {
		out = append(out, v)
	}
	return out
}

// environ returns the process environment with the secrets put back, for a
// program salve trusts with them (the aider tool, as
// docs/contracts/tool-adapter.md §4.2 wants).
func (s *secrets) environ() []string {
	env := os.Environ()
	if s == nil {
		return env
	}
	for k, v := range s.vals {
		env = append(env, k+"="+v)
	}
	return env
}

// hideSecrets takes the secrets out of the process environment before cmd
// runs, when main asked for it. "salve tool run" is left alone: the tool
// adapter gives the tool salve's whole environment
// (docs/contracts/tool-adapter.md §4.2), and it runs no build. The
// variables exec is asked to pass to the build (--env, $SALVE_EXEC_ENV) stay.
func hideSecrets(cmd *cobra.Command, s *streams) error {
	if !s.scrub || s.secrets != nil {
		return nil
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "tool" && c.Parent() == cmd.Root() {
			return nil
		}
	}
	keep := executor.PassEnvFromEnv(os.Getenv)
	if f := cmd.Flags().Lookup("env"); f != nil && f.Value.Type() == "stringArray" {
		names, _ := cmd.Flags().GetStringArray("env")
		for _, n := range names {
			k, _, _ := strings.Cut(n, "=")
			keep = append(keep, k)
		}
	}
	sec, err := takeSecrets(secret.IsSecretName, keep)
	s.secrets = sec
	if err != nil && len(sec.vals) > 0 {
		// Where /proc/self/mem cannot be written (some hardened kernels),
		// children still get no secret; only the /proc view keeps them.
		fmt.Fprintf(s.Stderr, "salve: warning: could not clear secrets from /proc/%d/environ (%v); a build under --isolation none can read them there\n", os.Getpid(), err)
	}
	return nil
}
