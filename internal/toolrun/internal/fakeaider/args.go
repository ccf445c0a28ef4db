// Package fakeaider is a stand-in for aider that tests run as a real
// process. It parses the command line the way aider's argparse parser does
// (long options, unique-prefix abbreviations such as "--yes" for
// "--yes-always", --x/--no-x pairs, repeated options, positional files),
// then follows directives written in its message file: edit, create and
// delete files, print, flood stdout, sleep, start a grandchild, dump its
// arguments, exit with a chosen code.
//
// A test binary becomes the fake when it is started under the name
// "aider": its TestMain calls [Main] when [Invoked] says so, and a link
// named aider to the test binary goes in a folder put first in PATH. The
// command in cmd/aider is the same fake as a program of its own.
package fakeaider

import (
	"fmt"
	"sort"
	"strings"
)

// kind is how an option consumes arguments, as in argparse.
type kind int

const (
	storeTrue kind = iota // --flag
	boolOpt               // --flag / --no-flag (BooleanOptionalAction)
	value                 // --flag VALUE
	appendOpt             // --flag VALUE, repeatable
)

// option is one of aider's options; Dest is its argparse destination.
type option struct {
	Names []string
	Dest  string
	Kind  kind
}

// options mirrors aider's argument parser (aider/args.py), in part: every
// option the adapter uses, and enough neighbours that abbreviations behave
// as they do in aider (for example "--yes" is only an abbreviation of
// "--yes-always", and "--model" must not be taken for "--models").
var options = []option{
	{[]string{"--model"}, "model", value},
	{[]string{"--models"}, "models", value},
	{[]string{"--model-settings-file"}, "model_settings_file", value},
	{[]string{"--model-metadata-file"}, "model_metadata_file", value},
	{[]string{"--weak-model"}, "weak_model", value},
	{[]string{"--editor-model"}, "editor_model", value},
	{[]string{"--edit-format", "--chat-mode"}, "edit_format", value},
	{[]string{"--openai-api-key"}, "openai_api_key", value},
	{[]string{"--anthropic-api-key"}, "anthropic_api_key", value},
	{[]string{"--api-key"}, "api_key", appendOpt},
	{[]string{"--openai-api-base"}, "openai_api_base", value},
	{[]string{"--map-tokens"}, "map_tokens", value},
	{[]string{"--env-file"}, "env_file", value},
	{[]string{"--input-history-file"}, "input_history_file", value},
	{[]string{"--chat-history-file"}, "chat_history_file", value},
	{[]string{"--llm-history-file"}, "llm_history_file", value},
	{[]string{"--aiderignore"}, "aiderignore", value},
	{[]string{"--commit-prompt"}, "commit_prompt", value},
	{[]string{"--test-cmd"}, "test_cmd", value},
	{[]string{"--lint-cmd"}, "lint_cmd", appendOpt},
	{[]string{"--encoding"}, "encoding", value},
	{[]string{"--config", "-c"}, "config", value},
	{[]string{"--message", "--msg", "-m"}, "message", value},
	{[]string{"--message-file", "-f"}, "message_file", value},
	{[]string{"--file"}, "file", appendOpt},
	{[]string{"--read"}, "read", appendOpt},
	{[]string{"--yes-always"}, "yes_always", storeTrue},
	{[]string{"--verbose", "-v"}, "verbose", storeTrue},
	{[]string{"--dark-mode"}, "dark_mode", storeTrue},
	{[]string{"--light-mode"}, "light_mode", storeTrue},
	{[]string{"--show-diffs"}, "show_diffs", storeTrue},
	{[]string{"--commit"}, "commit", storeTrue},
	{[]string{"--lint"}, "lint", storeTrue},
	{[]string{"--test"}, "test", storeTrue},
	{[]string{"--exit"}, "exit", storeTrue},
	{[]string{"--vim"}, "vim", storeTrue},
	{[]string{"--auto-commits"}, "auto_commits", boolOpt},
	{[]string{"--dirty-commits"}, "dirty_commits", boolOpt},
	{[]string{"--gitignore"}, "gitignore", boolOpt},
	{[]string{"--git"}, "git", boolOpt},
	{[]string{"--pretty"}, "pretty", boolOpt},
	{[]string{"--stream"}, "stream", boolOpt},
	{[]string{"--auto-lint"}, "auto_lint", boolOpt},
	{[]string{"--auto-test"}, "auto_test", boolOpt},
	{[]string{"--check-update"}, "check_update", boolOpt},
	{[]string{"--show-model-warnings"}, "show_model_warnings", boolOpt},
	{[]string{"--dry-run"}, "dry_run", boolOpt},
	{[]string{"--attribute-author"}, "attribute_author", boolOpt},
	{[]string{"--attribute-committer"}, "attribute_committer", boolOpt},
	{[]string{"--cache-prompts"}, "cache_prompts", boolOpt},
	{[]string{"--verify-ssl"}, "verify_ssl", boolOpt},
	{[]string{"--suggest-shell-commands"}, "suggest_shell_commands", boolOpt},
	{[]string{"--restore-chat-history"}, "restore_chat_history", boolOpt},
	{[]string{"--analytics"}, "analytics", boolOpt},
}

// Args is a parsed command line, with aider's defaults applied.
type Args struct {
	// Values holds value options by destination.
	Values map[string]string `json:"values"`
	// Lists holds repeated options by destination.
	Lists map[string][]string `json:"lists"`
	// Flags holds store_true and --x/--no-x options by destination.
	Flags map[string]bool `json:"flags"`
	// Files are the positional arguments.
	Files []string `json:"files"`
}

// Defaults of aider's boolean options that matter here.
var boolDefaults = map[string]bool{
	"auto_commits": true, "dirty_commits": true, "gitignore": true, "git": true, "pretty": true, "stream": true,
}

// UsageError is a command-line error; aider's argparse exits 2 with it.
type UsageError struct{ Msg string }

// Error renders the message as argparse prints it.
func (e *UsageError) Error() string { return "aider: error: " + e.Msg }

// Parse parses args (without the program name) as aider's argparse would.
func Parse(args []string) (*Args, error) {
	a := &Args{Values: map[string]string{}, Lists: map[string][]string{}, Flags: map[string]bool{}}
	for k, v := range boolDefaults {
		a.Flags[k] = v
	}
	var unknown []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			a.Files = append(a.Files, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.Files = append(a.Files, arg)
			continue
		}
		name, val, hasVal := strings.Cut(arg, "=")
		opt, negated, err := lookup(name)
		if err != nil {
			return nil, err
		}
		if opt == nil {
			unknown = append(unknown, arg)
			continue
		}
		next, err := a.apply(opt, negated, name, val, hasVal, args, i)
		if err != nil {
			return nil, err
		}
		i = next
	}
	if len(unknown) > 0 {
		return nil, &UsageError{"unrecognized arguments: " + strings.Join(unknown, " ")}
	}
	return a, nil
}

// apply records one option found at args[i] and returns the index of the
// last argument it used.
func (a *Args) apply(opt *option, negated bool, name, val string, hasVal bool, args []string, i int) (int, error) {
	switch opt.Kind {
	case storeTrue, boolOpt:
		if hasVal {
			return i, &UsageError{fmt.Sprintf("argument %s: ignored explicit argument '%s'", name, val)}
		}
		a.Flags[opt.Dest] = !negated
		return i, nil
	}
	if !hasVal {
		if !hasValueAt(args, i+1) {
			return i, &UsageError{fmt.Sprintf("argument %s: expected one argument", strings.Join(opt.Names, "/"))}
		}
		i++
		val = args[i]
	}
	if opt.Kind == value {
		a.Values[opt.Dest] = val
	} else {
		a.Lists[opt.Dest] = append(a.Lists[opt.Dest], val)
	}
	return i, nil
}

// hasValueAt reports whether args[i] can be an option's value: argparse
// does not take a string that looks like a flag.
func hasValueAt(args []string, i int) bool {
	return i < len(args) && (!strings.HasPrefix(args[i], "-") || args[i] == "-")
}

// lookup finds the option an argument names: an exact option string, or
// the one option string it is a prefix of (long options only, as argparse
// with allow_abbrev). It reports whether the --no- form was used.
func lookup(name string) (*option, bool, error) {
	type cand struct {
		opt     *option
		str     string
		negated bool
	}
	var all []cand
	for i := range options {
		o := &options[i]
		for _, n := range o.Names {
			all = append(all, cand{o, n, false})
			if o.Kind == boolOpt {
				all = append(all, cand{o, "--no-" + strings.TrimPrefix(n, "--"), true})
			}
		}
	}
	for _, c := range all {
		if c.str == name {
			return c.opt, c.negated, nil
		}
	}
	if !strings.HasPrefix(name, "--") {
		return nil, false, nil
	}
	var matches []cand
	for _, c := range all {
		if strings.HasPrefix(c.str, name) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 0:
		return nil, false, nil
	case 1:
		return matches[0].opt, matches[0].negated, nil
	}
	var names []string
	for _, m := range matches {
		names = append(names, m.str)
	}
	sort.Strings(names)
	return nil, false, &UsageError{fmt.Sprintf("ambiguous option: %s could match %s", name, strings.Join(names, ", "))}
}
