// Package mutation breaks the rules of a package on purpose, one change at a time, runs the
// package's tests against each change, and reports the changes no test noticed (survivors).
// Command cmd/mutate is its front end; CONTRIBUTING.md says when to run it and docs/mutation.md
// holds the last run's results.
//
// # Mutants
//
// Enumerate parses one non-test file (go/ast, no type checking) and lists its mutants:
//
//   - boundary: < and <=, > and >= exchanged (a window read one short);
//   - swap: the operands of an ordering exchanged, a < b read as b < a (a reversed tie-break
//     or sort order);
//   - equality: == and != exchanged;
//   - logical: && and || exchanged;
//   - negate-if: an if's condition negated;
//   - drop-if: an if without else whose body ends by leaving (return, break, continue, goto)
//     never runs (a dropped check);
//   - drop-call: a call statement never runs (a dropped side effect, such as a delete), except
//     Lock, Unlock, RLock, RUnlock, Done and panic, whose removal only hangs or does not compile;
//   - const+1, const-1: an integer literal one more or one less (a cap, a limit, an index; a 0
//     index or slice bound is not read as -1, which cannot compile);
//   - arithmetic: + and -, * and / exchanged, % read as * (+ with a string literal is skipped);
//   - incdec: ++ and -- exchanged.
//
// A dropped statement is wrapped in "if false { ... }" rather than deleted, so every name it
// uses stays used and the mutant compiles. Every mutant is a byte-range edit of the original
// text, so lines keep their numbers. Generated files (ast.IsGenerated) have no mutants; a
// comment holding "mutation:ignore" leaves out its own line when it follows code, the next line
// when it stands alone, and the whole function when it is in the function's doc comment.
//
// # Running
//
// Run lists the packages with go list, reads their files, keeps the mutants on lines changed
// since a git revision if asked (Config.Diff), draws a seeded sample if asked (Config.Sample,
// Config.Seed), runs the package's tests once unmutated (the baseline: they must pass, and
// their duration sets the per-mutant timeout), then tests each mutant with
//
//	go test -count=1 -failfast -vet=off -overlay=FILE [-run ...] [-short] [-race] PKG
//
// where the overlay points the one mutated file at a copy in a temporary directory: the working
// tree is never written, so a run can go on while its files are edited, and several runs can
// share a worktree. A mutant whose package does not compile is not viable; one whose tests time
// out counts as killed. The score is killed / (killed + survived).
//
// # Test selection
//
// Unless Config.AllTests is set, the baseline builds the package's test binary with coverage
// of the package (go test -c -cover -coverpkg=PKG), runs the whole suite with it, lists the
// top-level tests, examples and fuzz targets (-test.list) and runs each alone with a coverage
// profile of its own. A mutant then runs only the tests whose coverage holds the block
// containing its position (-run '^(A|B)$', timeout three times their time plus 30 s). A
// mutant in a block no test runs is built but not tested: it survives, marked NotCovered. The
// whole suite runs instead for a mutant outside every block (package-level declarations), for
// one in a block that the whole suite and the tests alone disagree on (state left by another
// test, timing), and for every mutant of a package with a test that fails alone or when
// Config.Run names subtests. docs/mutation.md lists the traps and the speedup measured.
//
// # Why not gremlins
//
// github.com/go-gremlins/gremlins (v0.6.0, served by the module proxy) mutates tokens the same
// way for the operator kinds, and this package would have used it if it covered the run this
// repository needs. It lacks three things that matter here: sampling (the packages hold
// thousands of mutants, a mutant costs a package test run of up to minutes, and the run must fit
// a shared machine, so a seeded sample is the only affordable whole-package run); mutants that
// remove statements (the breaks tests most often miss are dropped checks and dropped calls,
// which no operator swap produces); and operand swaps of an ordering (a reversed tie-break).
// It also begins with a coverage run of everything under the target directory (for the root
// package, the whole module). The code here is small (no
// dependency beyond the standard library) and its mutants are listed above.
package mutation
