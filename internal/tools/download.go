package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// DownloadIn is browser_download's input: urls, or a target whose media to
// fetch (LocatorIn's fields), and which images to return as blocks.
type DownloadIn struct {
	URLs []string `json:"urls,omitempty" jsonschema:"files to fetch with the page's cookies"`
	LocatorIn
	Indexes []int  `json:"indexes,omitempty" jsonschema:"images to return as blocks (default the first; 0: none)" minimum:"0" maximum:"20"`
	Session string `json:"session,omitempty"`
	Tab     string `json:"tab,omitempty"`
}

// MaxImageBlocks bounds the image blocks one browser_download returns.
const MaxImageBlocks = 5

// Check refuses urls with a target, or neither, before anything is held.
func (in DownloadIn) Check() error {
	tg := in.target()
	hasTarget := !tg.Empty() || tg.Within != ""
	switch {
	case len(in.URLs) > 0 && hasTarget:
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "give urls or a target, not both",
			Hint: "urls fetches those addresses; a target (ref, selector, text, role) fetches the media of that element"}
	case len(in.URLs) == 0 && !hasTarget:
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "give urls, or a target whose media to download (ref, selector, text or role)",
			Hint: `e.g. {"urls":["https://…/report.pdf"]} or {"selector":"img.hero"}; a container target downloads the images, video and audio in it`}
	}
	return nil
}

var downloadTool = Def(Tool{
	Name: "browser_download",
	Description: "Save files into the output directory with the page's cookies: urls, or a target's media " +
		"(images, video, audio). Images also come back as image blocks.",
	Annotations: Annotations{Destructive: ptr(false), OpenWorld: ptr(true)},
	Group:       GroupDownloads,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in DownloadIn) (*Result, error) {
	o := browser.FetchOptions{URLs: in.URLs, Target: in.target()}
	res, err := h.Downloads().Fetch(ctx, o)
	if err != nil {
		return nil, err
	}
	return downloadResult(res, in.Indexes), nil
})

// downloadResult lists the files and picks the image blocks: the first
// available image by default, else those asked for (0: none).
func downloadResult(res *browser.FetchResult, asked []int) *Result {
	var b strings.Builder
	saved := 0
	for _, f := range res.Files {
		if f.Failed == "" {
			saved++
		}
	}
	of := ""
	if res.Of != "" {
		of = " from the media of " + res.Of
	}
	files := "files"
	if len(res.Files) == 1 {
		files = "file"
	}
	fmt.Fprintf(&b, "Downloaded %d of %d %s%s into %s:", saved, len(res.Files), files, of, res.Folder)
	var available []int
	for _, f := range res.Files {
		b.WriteString("\n")
		if f.Failed != "" {
			fmt.Fprintf(&b, "%d. failed (%s): %s", f.Index, f.Code, f.Failed)
			continue
		}
		kind := ""
		if f.Kind != "" {
			kind = ", " + f.Kind
		}
		fmt.Fprintf(&b, "%d. %s (%s, %s%s) ← %s", f.Index, f.Path, kb(int(f.Bytes)), f.MIMEType, kind, browser.Echo(f.URL))
		if f.Data != nil && browser.CanEmbed(f.MIMEType, len(f.Data)) {
			available = append(available, f.Index)
		}
	}
	if res.More {
		fmt.Fprintf(&b, "\nThe target holds more media than the %d per call: target a smaller part of the page for the rest.", browser.MaxFetchFiles)
	}
	out := &Result{}
	if len(available) > 0 {
		want := asked
		if len(want) == 0 {
			want = available[:1]
		}
		var shown, notAvailable []int
		var notes []string
		for _, i := range want {
			switch {
			case i == 0 || slices.Contains(shown, i):
			case !slices.Contains(available, i):
				notAvailable = append(notAvailable, i)
			case len(shown) >= MaxImageBlocks:
			default:
				f := res.Files[i-1]
				em, err := browser.EmbedImage(f.Data, f.MIMEType)
				if err != nil {
					notes = append(notes, fmt.Sprintf("index %d: %v", i, err))
					continue
				}
				if em.Preview {
					notes = append(notes, fmt.Sprintf("index %d is over the %s embed limit: returned a %d×%d JPEG preview (%s)", i, kb(browser.EmbedLimit), em.Width, em.Height, kb(len(em.Data))))
				}
				img := &Image{Data: em.Data, MIMEType: em.MIMEType}
				if out.Image == nil {
					out.Image = img
				} else {
					out.MoreImages = append(out.MoreImages, img)
				}
				shown = append(shown, i)
			}
		}
		var skipped []int
		for _, i := range available {
			if !slices.Contains(shown, i) {
				skipped = append(skipped, i)
			}
		}
		fmt.Fprintf(&b, "\nImage blocks: indexes %s · skipped_indexes %s · available_indexes %s", ints(shown), ints(skipped), ints(available))
		if len(skipped) > 0 {
			b.WriteString(" (pass indexes to see others")
			if len(want) > MaxImageBlocks {
				fmt.Fprintf(&b, "; at most %d per call", MaxImageBlocks)
			}
			b.WriteString(")")
		}
		if len(notAvailable) > 0 {
			fmt.Fprintf(&b, "\nindexes %s: not an image that can be shown", ints(notAvailable))
		}
		for _, n := range notes {
			b.WriteString("\n" + n)
		}
	}
	out.Text = b.String()
	return out
}

// ints writes a list of numbers as [1, 2].
func ints(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
