package server

import (
	"os"
	"strconv"
	"strings"
)

// The variables through which git reads configuration from its
// environment (git 2.31 and later): GIT_CONFIG_COUNT, and
// GIT_CONFIG_KEY_<n> with GIT_CONFIG_VALUE_<n> for n below it.
const (
	envConfigCount = "GIT_CONFIG_COUNT"
	envConfigKey   = "GIT_CONFIG_KEY_"
	envConfigValue = "GIT_CONFIG_VALUE_"
)

// maxConfigEnv bounds the GIT_CONFIG_* entries read.
const maxConfigEnv = 16

// ConfigEnv returns the entries of git's environment configuration in
// environ (KEY=VALUE lines) that the agent passes on to git, renumbered
// from 0 with their GIT_CONFIG_COUNT: only http.extraHeader, bare or
// scoped to a URL (http.<url>.extraHeader), which is how a caller hands
// git an Authorization header (a GitHub App's installation token) without
// putting it in a URL, an argument or a file. Every other key is dropped:
// configuration from the environment outranks the repository's, and keys
// such as core.hooksPath or core.sshCommand would run programs. The
// agent's own "-c" settings still come after these.
func ConfigEnv(environ []string) []string {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GIT_CONFIG_") {
			vars[k] = v
		}
	}
	n, err := strconv.Atoi(vars[envConfigCount])
	if err != nil || n <= 0 {
		return nil
	}
	var out []string
	kept := 0
	for i := 0; i < min(n, maxConfigEnv); i++ {
		key, ok := vars[envConfigKey+strconv.Itoa(i)]
		val := vars[envConfigValue+strconv.Itoa(i)]
		if !ok || !extraHeaderKey(key) || strings.ContainsAny(val, "\r\n\x00") {
			continue
		}
		out = append(out, envConfigKey+strconv.Itoa(kept)+"="+key, envConfigValue+strconv.Itoa(kept)+"="+val)
		kept++
	}
	if kept == 0 {
		return nil
	}
	return append(out, envConfigCount+"="+strconv.Itoa(kept))
}

// extraHeaderKey accepts "http.extraheader" and "http.<url>.extraheader"
// (names compared without case), the URL an https one without spaces or
// control characters.
func extraHeaderKey(k string) bool {
	low := strings.ToLower(k)
	if low == "http.extraheader" {
		return true
	}
	rest, ok := strings.CutPrefix(low, "http.")
	if !ok {
		return false
	}
	u, ok := strings.CutSuffix(rest, ".extraheader")
	return ok && len(u) > len("https://") && strings.HasPrefix(u, "https://") &&
		!strings.ContainsFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// processConfigEnv is ConfigEnv of this process's environment.
func processConfigEnv() []string { return ConfigEnv(os.Environ()) }
