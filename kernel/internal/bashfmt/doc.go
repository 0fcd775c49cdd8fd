// Package bashfmt writes text as bash's printf and echo do: [Printf]
// applies a format to arguments (C's conversions at long double
// precision, %b, %q, %(...)T), [AppendEcho] is echo's output with its
// flags and -e's escapes. Both are pure functions of their arguments;
// the builtins that write their result are package bashcompat's.
package bashfmt
