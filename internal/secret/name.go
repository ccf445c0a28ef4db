// Package secret is salve's one rule for what is a secret: which variable,
// flag and map-key names hold one ([IsSecretName]), and the [Masker] that
// replaces known secret values in text, bytes and streams. Everything that
// hides a secret reads it: the sandbox's output masking, the tool
// adapter's masking, the run store's redaction and the CLI's removal of
// keys from its own environment.
//
// The package imports only the standard library.
package secret

import (
	"strings"
	"unicode"
)

// Match says how a [Rule] compares its patterns with a name, after the
// name is normalised (see [Words]).
type Match int

// The kinds of match.
const (
	// Exact: the whole normalised name equals a pattern.
	Exact Match = iota
	// Word: one of the name's words equals a pattern.
	Word
	// LastWord: the name's last word equals a pattern.
	LastWord
	// Pair: two adjacent words equal a pattern of two words ("API KEY").
	Pair
	// Squashed: the name with its separators removed ends with a pattern,
	// for names written without them (GITHUBTOKEN, openaiapikey).
	Squashed
)

// Rule is one row of [Rules]: names that match one of Patterns (as Match
// says) hold a secret when Secret is true, and do not when it is false.
type Rule struct {
	Match    Match
	Patterns []string
	Secret   bool
	// Why says what the row is for.
	Why string
}

// Rules decide whether a name holds a secret. The first row that matches
// wins, so the explicit non-secrets come first. Matching works on words
// (see [Words]): "TOKEN" matches GITHUB_TOKEN and accessToken but neither
// TOKENIZERS_PARALLELISM nor MAX_TOKENS, and "AUTH" never matches AUTHOR.
var Rules = []Rule{
	// Explicit non-secrets: names an earlier rule of salve's took for
	// secrets, or that a row below would. Token counts (MAX_TOKENS) and
	// *_KEYWORDS need no row: no word of theirs is TOKEN or KEY.
	{Exact, []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE"}, false,
		"who wrote and committed a commit: printed in every git log (an old rule's \"auth\" substring hid GIT_AUTHOR_NAME)"},
	{Exact, []string{"SSH_AUTH_SOCK"}, false,
		"the path of ssh-agent's socket: ssh needs it, and the path reveals nothing"},
	{Exact, []string{"TOKENIZERS_PARALLELISM", "KEYCHAIN", "KEYCHAIN_PATH"}, false,
		"a tokenizer switch and a keychain's file: an old rule's \"token\" substring hid the first"},
	{Squashed, []string{"CACHEKEY"}, false,
		"a cache entry's name (CI_CACHE_KEY): printed by CI in every log; the KEY row below would take it"},

	// Known secrets, by their whole name.
	{Exact, []string{
		"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY",
		"MISTRAL_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "AZURE_OPENAI_API_KEY",
	}, true, "the LLM providers' API keys"},
	{Exact, []string{"GITHUB_TOKEN", "GH_TOKEN", "GITHUB_PAT", "GITLAB_TOKEN", "CI_JOB_TOKEN", "NPM_TOKEN", "NODE_AUTH_TOKEN"}, true,
		"forge and package-registry tokens"},
	{Exact, []string{"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID"}, true,
		"AWS credentials (the key id is half of the pair, and names the account)"},
	{Exact, []string{"DOCKER_AUTH_CONFIG"}, true,
		"container-registry credentials as JSON (GitLab CI)"},
	{Exact, []string{"SALVE_SERVER_TOKEN", "SALVE_NATS_TOKEN", "SALVE_MCP_TOKEN"}, true,
		"salve's own bearer tokens (the jobs API, the NATS server, the MCP server)"},

	// Secrets by a word of their name.
	{Word, []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "APIKEY", "AUTHORIZATION"}, true,
		"tokens, secrets, passwords, passphrases, credentials, API keys and authorization headers, wherever the word stands (DB_PASSWORD, GPG_PASSPHRASE, Authorization)"},
	{Word, []string{"PAT"}, true,
		"a personal access token (GITHUB_PAT, PAT_GITLAB)"},
	{Pair, []string{"API KEY", "ACCESS KEY", "PRIVATE KEY", "SECRET KEY"}, true,
		"API, access and private keys, wherever they stand (API_KEY_2, PRIVATE_KEY_PEM)"},
	{LastWord, []string{"KEY"}, true,
		"a name ending in KEY (SIGNING_KEY, --openai-api-key): a key, unless a row above says otherwise"},
	{LastWord, []string{"AUTH"}, true,
		"basic-auth strings (NPM_AUTH, _auth, BASIC_AUTH)"},
	{LastWord, []string{"PASS"}, true,
		"passwords written short (DB_PASS, SMTP_PASS)"},
	{Squashed, []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY"}, true,
		"the same words with no separator before them (GITHUBTOKEN, openaiapikey)"},
}

// IsSecretName reports whether a variable, flag or map key called name
// holds a secret: the verdict of the first row of [Rules] that matches,
// false when none does. Case, leading dashes and the separator ("_", "-",
// ".", camelCase) do not matter: OPENAI_API_KEY, --openai-api-key and
// openaiApiKey are the same name.
func IsSecretName(name string) bool {
	r, ok := Classify(name)
	return ok && r.Secret
}

// Classify returns the first row of [Rules] that matches name, and false
// when none does.
func Classify(name string) (Rule, bool) {
	words := Words(name)
	if len(words) == 0 {
		return Rule{}, false
	}
	joined := strings.Join(words, "_")
	squashed := strings.Join(words, "")
	for _, r := range Rules {
		for _, p := range r.Patterns {
			if r.Match.matches(p, words, joined, squashed) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

func (m Match) matches(p string, words []string, joined, squashed string) bool {
	switch m {
	case Exact:
		return joined == p
	case Word:
		for _, w := range words {
			if w == p {
				return true
			}
		}
	case LastWord:
		return words[len(words)-1] == p
	case Pair:
		a, b, _ := strings.Cut(p, " ")
		for i := 0; i+1 < len(words); i++ {
			if words[i] == a && words[i+1] == b {
				return true
			}
		}
	case Squashed:
		return strings.HasSuffix(squashed, p)
	}
	return false
}

// maxNameLen bounds the part of a name that is looked at: names come from
// requests and logs, and no real variable is longer.
const maxNameLen = 256

// Words splits name into upper-case words: at every character that is not
// a letter or a digit, and where a lower-case letter is followed by an
// upper-case one, digits between them or not (camelCase). Leading dashes go with the first separator.
// "--openai-api-key", "OPENAI_API_KEY" and "openaiApiKey" give OPENAI, API,
// KEY. Only the first 256 bytes of name count.
func Words(name string) []string {
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	var words []string
	var cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, c := range name {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(c) && prevLower:
			flush()
		}
		if !unicode.IsDigit(c) {
			prevLower = unicode.IsLower(c)
		}
		cur.WriteRune(unicode.ToUpper(c))
	}
	flush()
	return words
}
