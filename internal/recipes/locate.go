package recipes

// Element is what was recorded of an element a saved step acts on, as far
// as choosing the step's locator goes: the part of the step's candidates
// (browser.Candidates) that names it. The rest of the candidates is kept
// in the step for healing and plays no part here.
type Element struct {
	// Tag, Role and Name are the element's tag, computed role and
	// accessible name.
	Tag, Role, Name string
	// Similar is how many other shown elements had the same role and name
	// when it was recorded.
	Similar int
	// CSS are selectors unique to the element, most trustworthy first:
	// kinds "id", "attr" (test ids first) and "structural".
	CSS []Selector
	// Text is its visible text, when it has one.
	Text string
	// Frame is the CSS selector of the iframe it is in; "" for the main
	// frame.
	Frame string
	// ByPlace says the step picks whatever element is in that place (the
	// first result), not this one by what it is.
	ByPlace bool
}

// Selector is one CSS selector that matched only the element, and its
// kind ("id", "attr" or "structural").
type Selector struct {
	Kind, CSS string
}

// Structural is the element's structural selector (its path from a
// stable ancestor), or "".
func (e Element) Structural() string {
	for _, s := range e.CSS {
		if s.Kind == "structural" {
			return s.CSS
		}
	}
	return ""
}

// Locate is the one locator policy for saved steps: the step fields
// (selector; role, name and exact; or text and exact; plus frame) that
// recipe_save writes for a step the agent took by ref and recipe_record
// writes for a step the user took, so that the same element is saved the
// same way by both. In order:
//
//  1. a step that picks by place (ByPlace): its structural selector, still
//     by place;
//  2. a selector by id or attribute (test id, name…): what the page's
//     authors made to name the element, the least likely to change;
//  3. role and exact name, when the name told the element apart when it
//     was recorded (Similar is 0) and the role says something (not
//     "generic"): stable across markup changes, as the agent reads it;
//  4. its exact visible text;
//  5. its structural path: unique when recorded, but the first to break
//     when the markup moves, so it is the last choice;
//  6. its tag alone, found again by the candidates kept beside it.
//
// This is the rule recipe_record had (its steps are replayed, healed and
// tested on changed pages); recipe_save used to write the first CSS
// candidate, a brittle structural path for an element without an id or
// attribute. An element with no tag gives no fields.
func Locate(e Element) map[string]any {
	fields := map[string]any{}
	if e.Frame != "" {
		fields["frame"] = e.Frame
	}
	if e.ByPlace {
		if s := e.Structural(); s != "" {
			fields["selector"] = s
			return fields
		}
	}
	for _, s := range e.CSS {
		if s.Kind == "id" || s.Kind == "attr" {
			fields["selector"] = s.CSS
			return fields
		}
	}
	switch {
	case e.Role != "" && e.Name != "" && e.Similar == 0 && e.Role != "generic":
		fields["role"], fields["name"], fields["exact"] = e.Role, e.Name, true
	case e.Text != "":
		fields["text"], fields["exact"] = e.Text, true
	case len(e.CSS) > 0:
		fields["selector"] = e.CSS[0].CSS
	case e.Tag != "":
		fields["selector"] = e.Tag
	default:
		return map[string]any{}
	}
	return fields
}
