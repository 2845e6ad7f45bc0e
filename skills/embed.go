// Package skills carries webpilot's agent skill: skills/webpilot/SKILL.md in the Agent Skills
// format (YAML front matter with name and description, then Markdown written for a model) that
// teaches an agent the snapshot → ref → action loop, which tool to use when, the error codes and
// the rules for secrets and page content. `webpilot skill --out DIR` writes it to
// DIR/webpilot/SKILL.md, where a client that reads skills finds it. The package holds no logic;
// its tests keep the file in step with the tool table and the error codes.
package skills

import "embed"

// Files holds webpilot/SKILL.md.
//
//go:embed webpilot/SKILL.md
var Files embed.FS

// Path is the skill's file inside Files, and inside the directory it is written to.
const Path = "webpilot/SKILL.md"

// Skill returns the text of SKILL.md.
func Skill() []byte {
	b, err := Files.ReadFile(Path)
	if err != nil {
		panic("skills: SKILL.md is not embedded: " + err.Error()) // a build error, not a runtime one
	}
	return b
}
