// Package static is the kernel's static pass as pure functions over the
// syntax tree: what it refuses before anything of a script runs, and the
// known gaps it notes.
//
//   - [Crashes] finds the constructs mvdan/sh panics on, [SourceRefusal]
//     the same in source given at run time, and [BuiltinRefusal] in the
//     expanded words of test, [ and unset;
//   - a [Guard] refuses the commands a session's tools replace, looking
//     through launchers ([Guard.UnwrapOne]) to the command they launch;
//   - [AssignedNames], [BracedNames] and [LiteralFlag] find the variables
//     a command sets, for the guard's variable entries;
//   - a [GapCheck] finds the known gaps a script's text shows, each a
//     [Gap] that the kernel reports as a note: it refuses nothing;
//     [BashAccepts] says what bash does with a script mvdan/sh's parser
//     refuses, and how to write it for both.
//
// It knows nothing of a session: what it needs of one comes as plain data
// ([Tool]: a tool's name, its description, what it replaces and how it
// unwraps) or as a function (whether a name is an associative array).
// Package kernel walks a script, asks these, and turns what they find
// into its Issues.
package static
