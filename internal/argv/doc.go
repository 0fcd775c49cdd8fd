// Package argv reads command lines for every command shelter declares:
// the wrapped commands' verbs, the builtins, the harness tools and the
// CLI itself. One description of a flag ([Flag]: its names, its value,
// its about line) serves the parse, the help and the refusal:
//
//   - a [Set] is a command's flags and how its words name them: a
//     [Syntax] ([Exact], [GNU] or [Go]), whether flags may follow the
//     operands, which words ask for help;
//   - a [Scanner] reads the words one [Item] at a time, for a caller
//     that decides as it reads (a verb's positional slots, a launcher's
//     command, jq's two-word --arg); [Set.Parse] reads them all;
//   - an [*Error] is a refusal, worded in internal/refusal's one voice:
//     "head: unknown flag '-z'; allowed: -c/--bytes, -n/--lines";
//   - [Set.Help] renders the flags as every help lists them.
//
// The syntaxes accept what the programs they stand for accept
// (docs/wrapped_command.md for [Exact], docs/sandbox.md for [GNU],
// docs/cli.md for [Go]), so that moving a command onto this package
// changes nothing a caller may type.
package argv
