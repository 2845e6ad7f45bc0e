package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tiktoken-go/tokenizer"
)

// sideTasks are the whole tasks of the token count, on small pages (≤ 10
// refs): the actions in order, and the text that shows the task is done.
var sideTasks = []struct {
	page  string
	steps []sideAct
	done  string
}{
	{"bench/login.html", []sideAct{
		{kind: "fill", role: "textbox", name: "Username", value: "ada"},
		{kind: "fill", role: "textbox", name: "Password", value: "s3cret-pass"},
		{kind: "check", role: "checkbox", name: "Remember me"},
		{kind: "click", role: "button", name: "Sign in"},
	}, "Welcome, ada!"},
	{"bench/tabs.html", []sideAct{
		{kind: "click", role: "tab", name: "Billing"},
		{kind: "click", role: "button", name: "Cancel plan"},
	}, "Your plan ends on 1 March."},
	{"bench/todo.html", []sideAct{
		{kind: "fill", role: "textbox", name: "New item", value: "Buy milk"},
		{kind: "click", role: "button", name: "Add"},
		{kind: "check", role: "checkbox", name: "Pay rent"},
	}, "3 left"},
}

// taskTokens runs each task once on each server the way a scripted agent
// would, with the same plan for all: navigate (and snapshot when the reply
// has no refs), then each action by the ref found in the replies so far
// (the newest first), taking a snapshot only when no reply has the ref, and
// a last snapshot only when no reply shows the task done. It returns the
// o200k tokens of every tool result, per task and server, and the calls.
func taskTokens(sessions []*sideSession, baseURL string, enc tokenizer.Codec) (tokens, calls [][]int, err error) {
	tokens = make([][]int, len(sideTasks))
	calls = make([][]int, len(sideTasks))
	for ti, task := range sideTasks {
		tokens[ti] = make([]int, len(sessions))
		calls[ti] = make([]int, len(sessions))
		for i, s := range sessions {
			var seen []string // the replies, oldest first
			run := func(tool string, args map[string]any) (string, error) {
				_, text, err := s.call(tool, args)
				if err != nil {
					return "", err
				}
				n, _ := enc.Count(text)
				tokens[ti][i] += n
				calls[ti][i]++
				seen = append(seen, text)
				return text, nil
			}
			// The navigate the agent would make: webpilot's and
			// playwright-mcp's return a snapshot.
			tool, args := s.srv.navigate(baseURL + "/" + task.page)
			if tool == "browser_navigate" && s.srv.name == "webpilot" {
				args = map[string]any{"url": args["url"]}
			}
			if _, err := run(tool, args); err != nil {
				return nil, nil, err
			}
			for _, st := range task.steps {
				tool, args := s.srv.act(strings.Join(seen, "\n"), st)
				if tool == "" {
					if _, err := run(s.srv.snapshot()); err != nil {
						return nil, nil, err
					}
					tool, args = s.srv.act(strings.Join(seen, "\n"), st)
				}
				if tool == "" {
					return nil, nil, fmt.Errorf("bench: tasks: %s: no ref for %s %q on %s", s.srv.name, st.role, st.name, task.page)
				}
				if _, err := run(tool, args); err != nil {
					return nil, nil, err
				}
			}
			if !strings.Contains(seen[len(seen)-1], task.done) {
				text, err := run(s.srv.snapshot())
				if err != nil {
					return nil, nil, err
				}
				if !strings.Contains(text, task.done) {
					return nil, nil, fmt.Errorf("bench: tasks: %s: %s not done: %q is not in its snapshot: %s", s.srv.name, task.page, task.done, trimTo(text, 500))
				}
			}
		}
	}
	return tokens, calls, nil
}

// printTaskTokens prints taskTokens' table: per task, each server's tokens
// (and calls) and webpilot's tokens over the best peer's.
func printTaskTokens(w io.Writer, sessions []*sideSession, tokens, calls [][]int) {
	fmt.Fprintln(w, "whole tasks on small pages — o200k tokens of every tool result (calls), the same plan for each server")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, sideHead("task", "× best peer", sessions))
	for ti, task := range sideTasks {
		line := task.page + "\t"
		vals := make([]float64, len(sessions))
		for i := range sessions {
			line += fmt.Sprintf("%d (%d)\t", tokens[ti][i], calls[ti][i])
			vals[i] = float64(tokens[ti][i])
		}
		fmt.Fprintln(tw, line+overBestPeer(vals)+"\t")
	}
	tw.Flush()
}
