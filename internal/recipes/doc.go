// Package recipes is webpilot's recipes and the site gate.
//
// Recipes are a named, parameterised flow
// for one site, kept as JSON (one file per recipe, <name>.json), checked on
// load with errors that name the file, the step and the field, bound to its
// parameters into flow steps (package flow runs them), and stored in two
// places: the user's recipe folder (always usable) and the project folder
// ./.webpilot/recipes of the working directory (usable only once the user
// has trusted it, and again after every change to it).
//
// A recipe file:
//
//	{
//	  "name": "shop-search",
//	  "site": "shop.example.com",
//	  "description": "Search the shop and read the first result's price",
//	  "version": 1,
//	  "params": {
//	    "query": {"type": "string", "default": "socks"},
//	    "limit": {"type": "number", "minimum": 1, "maximum": 50, "default": 5},
//	    "sort":  {"type": "enum", "values": ["price", "rating"], "default": "price"}
//	  },
//	  "steps": [
//	    {"do": "navigate", "url": "https://shop.example.com/search?q=$query"},
//	    {"do": "action", "action": "click", "selector": "#go", "candidates": {…}},
//	    {"do": "read", "what": "text", "selector": ".price", "save_as": "price"}
//	  ],
//	  "output": ["price"],
//	  "budget_ms": 30000
//	}
//
// Steps are the flow step language (package flow) plus an optional
// "candidates" object per step, opaque here (the browser's self-healing
// relocation defines it), and $param references: $name or ${name} in any
// string of a step is replaced by the parameter's value when the recipe is
// bound; "$name" alone for a number or boolean parameter becomes the value
// itself. Parameters and save_as names share the $ namespace; $$ is a
// literal $.
//
// Trust: a project folder is trusted by recording its absolute path and a
// SHA-256 over its recipe files in trust.json in the user config dir
// (webpilot recipe trust DIR). A folder whose files no longer match (one
// added, edited or removed) is untrusted until trusted again; recipe files
// that are symbolic links leading out of the folder are refused.
//
// The site gate (Gate) keeps recipe runs and flows from hammering one site:
// per registrable domain a bounded number run at once and a bounded queue
// waits its turn; beyond that, SITE_BUSY.
package recipes
