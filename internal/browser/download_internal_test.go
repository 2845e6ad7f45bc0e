package browser

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// What a finished download says, per where it ended up.
func TestDownloadString(t *testing.T) {
	for _, tc := range []struct {
		d    Download
		want string
	}{
		{Download{Name: "x.bin", State: "completed", Bytes: 4, Path: "/o/downloads-1/x.bin", MIMEType: "application/pdf"}, "x.bin (4 bytes, application/pdf) saved to /o/downloads-1/x.bin"},
		{Download{Name: "x.bin", State: "completed", Bytes: 2048, Elsewhere: "on the browser's machine, in its download folder, not here", URL: "https://a.test/x", fullURL: "https://a.test/x"},
			`x.bin (2.0 KB) saved on the browser's machine, in its download folder, not here; browser_download {"urls":["https://a.test/x"]} fetches it into the output directory`},
		{Download{Name: "x.bin", State: "completed", Bytes: 2048, Elsewhere: "elsewhere", URL: "https://a.test/x…"},
			`x.bin (2.0 KB) saved elsewhere; browser_download with its URL (https://a.test/x…) fetches it into the output directory`},
		{Download{Name: "x.bin", State: "completed", Bytes: 4, Refused: "the browser reports it interrupted (USER_CANCELED)"}, "x.bin (4 bytes): not kept: the browser reports it interrupted (USER_CANCELED)"},
		{Download{Name: "x.bin", State: "in_progress", Bytes: 1 << 20, Total: 3 << 20}, "x.bin: still downloading (1.0 MB of 3145728 bytes)"},
		{Download{Name: "x.bin", State: "canceled"}, "x.bin: canceled after 0 bytes"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// The output funnel: fresh folders; files named safely and uniquely, 0600;
// a copy leaves its source; a move takes it; the cap refuses.
func TestOutputFolderFiles(t *testing.T) {
	out := t.TempDir()
	m := NewManager(Options{Backend: nopBackend{}, OutputDir: out, OutputMaxBytes: 100})
	a, err := m.policy.newOutputFolder("", "downloads")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.policy.newOutputFolder("", "downloads")
	if a == b || filepath.Dir(a) != out || !strings.HasPrefix(filepath.Base(a), "downloads-") {
		t.Fatalf("folders %q %q", a, b)
	}
	p1, n, err := m.policy.putOutputFile(a, "../../etc/report.csv", outputFile{data: []byte("one")})
	if err != nil || p1 != filepath.Join(a, "report.csv") || n != 3 {
		t.Fatalf("put = %q %d %v", p1, n, err)
	}
	src := filepath.Join(t.TempDir(), "user.csv")
	_ = os.WriteFile(src, []byte("two!"), 0o644)
	p2, n, err := m.policy.putOutputFile(a, "report.csv", outputFile{copyOf: src})
	if err != nil || p2 != filepath.Join(a, "report (2).csv") || n != 4 {
		t.Fatalf("copy = %q %d %v", p2, n, err)
	}
	if _, err := os.Stat(src); err != nil {
		t.Errorf("the copied file is gone: %v", err)
	}
	if fi, _ := os.Stat(p2); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	staged := filepath.Join(m.policy.downloadStaging(), "guid-1")
	_ = os.MkdirAll(m.policy.downloadStaging(), 0o700)
	_ = os.WriteFile(staged, []byte("three"), 0o644)
	p3, _, err := m.policy.putOutputFile(b, ".hidden", outputFile{moveFrom: staged})
	if err != nil || p3 != filepath.Join(b, "hidden") {
		t.Fatalf("move = %q %v", p3, err)
	}
	if _, err := os.Stat(staged); err == nil {
		t.Error("the staged file is still there")
	}
	es, err := m.policy.out.Entries()
	var used int64
	for _, e := range es {
		used += e.Size
	}
	if err != nil || len(es) != 2 || used != 12 {
		t.Errorf("owned entries %+v (%v), want the two folders, 12 bytes", es, err)
	}
	// 90 bytes more pass the 100-byte budget: the oldest folder goes.
	if _, _, err := m.policy.putOutputFile(b, "big", outputFile{data: make([]byte, 90)}); err != nil {
		t.Fatalf("put past the budget: %v", err)
	}
	if _, err := os.Stat(a); err == nil {
		t.Error("the oldest folder was not removed to make room")
	}
	_, _, err = m.policy.putOutputFile(b, "huge", outputFile{data: make([]byte, 200)})
	if we, ok := AsError(err); !ok || we.Code != CodeLimitExceeded {
		t.Errorf("over the whole budget: %v", err)
	}
}

func TestFetchNamesAndDataURLs(t *testing.T) {
	for _, tc := range []struct{ url, mime, want string }{
		{"https://a.test/img/photo.jpg?x=1", "image/jpeg", "photo.jpg"},
		{"https://a.test/img/photo", "image/png", "photo.png"},
		{"https://a.test/", "application/pdf", "download-3.pdf"},
		{"data:image/png;base64,AAAA", "image/png", "download-3.png"},
		{"blob:https://a.test/3f1c-22", "video/mp4", "download-3.mp4"},
		{"https://a.test/a%20b%2F..%2Fc.txt", "text/plain", "c.txt"},
		{"https://a.test/my%20file", "", "my file"},
	} {
		if got := fetchName(tc.url, tc.mime, 3); got != tc.want {
			t.Errorf("fetchName(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
	for _, tc := range []struct{ url, mime, data string }{
		{"data:,hello%20there", "text/plain", "hello there"},
		{"data:text/csv;charset=utf-8,a,b", "text/csv", "a,b"},
		{"data:image/gif;base64,R0lG", "image/gif", "GIF"},
		{"data:;base64,aGk", "text/plain", "hi"},
	} {
		data, mt, err := decodeDataURL(tc.url)
		if err != nil || mt != tc.mime || string(data) != tc.data {
			t.Errorf("decodeDataURL(%q) = %q %q %v", tc.url, data, mt, err)
		}
	}
	if _, _, err := decodeDataURL("data:text/plain"); err == nil {
		t.Error("a data: URL without a comma decoded")
	}
}

// An image over the embed limit comes back as a JPEG preview under it; a
// small one as it is; a type that cannot be shown is refused.
func TestEmbedImage(t *testing.T) {
	old := EmbedLimit
	EmbedLimit = 20 * 1024
	t.Cleanup(func() { EmbedLimit = old })
	img := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	var big bytes.Buffer
	_ = png.Encode(&big, img)
	if big.Len() <= EmbedLimit {
		t.Fatalf("the noise PNG is only %d bytes", big.Len())
	}
	em, err := EmbedImage(big.Bytes(), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(em.Data))
	if err != nil || format != "jpeg" || !em.Preview || em.MIMEType != "image/jpeg" || len(em.Data) > EmbedLimit || cfg.Width != em.Width || cfg.Width >= 400 || cfg.Width < 10 {
		t.Errorf("preview: %s %d×%d, %d bytes, %+v %v", format, cfg.Width, cfg.Height, len(em.Data), em.Preview, err)
	}
	small := image.NewRGBA(image.Rect(0, 0, 4, 4))
	small.Set(1, 1, color.White)
	var sb bytes.Buffer
	_ = jpeg.Encode(&sb, small, nil)
	if em, err := EmbedImage(sb.Bytes(), "image/jpeg"); err != nil || em.Preview || !bytes.Equal(em.Data, sb.Bytes()) {
		t.Errorf("small image: %+v %v", em, err)
	}
	if _, err := EmbedImage([]byte("<svg/>"), "image/svg+xml"); err == nil || CanEmbed("image/svg+xml", 6) {
		t.Error("an SVG was embedded")
	}
	if CanEmbed("image/webp", EmbedLimit+1) || !CanEmbed("image/webp", 100) {
		t.Error("CanEmbed webp")
	}
}

// A download named longer than a file system takes (a Content-Disposition
// of 300 characters) is kept under a shortened name, its extension kept,
// and nothing stays behind in the staging folder.
func TestLongDownloadNames(t *testing.T) {
	out := t.TempDir()
	m := NewManager(Options{Backend: nopBackend{}, OutputDir: out, OutputMaxBytes: 1 << 20})
	folder, err := m.policy.newOutputFolder("", "downloads")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{strings.Repeat("a", 300) + ".pdf", strings.Repeat("é", 200) + ".csv", strings.Repeat("b", 300)} {
		staged := filepath.Join(m.policy.downloadStaging(), "guid-long")
		_ = os.MkdirAll(m.policy.downloadStaging(), 0o700)
		if err := os.WriteFile(staged, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, err := m.policy.putOutputFile(folder, name, outputFile{moveFrom: staged})
		if err != nil {
			t.Fatalf("%.20s…: %v", name, err)
		}
		base := filepath.Base(p)
		if len(base) > 255 || !utf8.ValidString(base) || filepath.Ext(name) != "" && filepath.Ext(base) != filepath.Ext(name) {
			t.Errorf("%.20s… kept as %q (%d bytes)", name, base, len(base))
		}
		if left, _ := os.ReadDir(m.policy.downloadStaging()); len(left) != 0 {
			t.Errorf("left in the staging folder: %v", left)
		}
	}
}
