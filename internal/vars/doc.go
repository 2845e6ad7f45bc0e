// Package vars lexes the $name variables of flow steps and recipes.
//
// A string argument of a step may hold $name (a value a step saved with
// save_as, or a recipe's parameter) alone or inside text ("hello $name");
// recipes also write ${name}, so that a letter may follow the name. $$ is a
// literal $, and a $ that starts no name (a price such as $5) stays as it
// is. [Lex] splits a string into tokens; what a reference becomes is the
// caller's business: internal/flow puts in saved values and turns $$ into
// $, internal/recipes binds parameters and keeps $$ for the flow.
//
// It is pure code and imports nothing of webpilot's.
package vars
