// Package repl is shelter's interactive frontend: a prompt on the
// process's terminal that runs each entry in a [kernel.Session], the
// same machinery an agent's calls go through. docs/repl.md is the
// contract for users.
//
// [Run] is the whole prompt: line editing, Ctrl-R and Tab completion
// from github.com/reeflective/readline, history kept as plain lines in a
// file ([History]), multi-line entries completed by the shell parser,
// Ctrl-C, Ctrl-D and Ctrl-Z handling, and programs run in the
// terminal's foreground (kernel.RunOptions.Terminal). On a dumb
// terminal (TERM=dumb) it reads plain lines instead of editing them; on
// one that does not answer the editor's cursor position query, the
// editor draws without asking. [Prompt] renders the prompt string and
// [Complete] the candidates Tab offers; both are usable without a
// terminal.
package repl
