package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // decoding downloaded GIFs for previews
	"image/jpeg"
	"math"
)

// Embedded is an image ready to return as an image block: the file as it
// is, or a downscaled JPEG preview of it.
type Embedded struct {
	Data     []byte
	MIMEType string
	Preview  bool // Data is a preview of a larger file
	Width    int  // of Data, when known
	Height   int
}

// embeddable are the image types MCP clients show as they are.
var embeddable = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// previewable are the types webpilot can decode to make a preview.
var previewable = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true}

// maxPreviewPixels bounds the images decoded for a preview (a 40 MP image
// takes 160 MB decoded).
const maxPreviewPixels = 40_000_000

// CanEmbed says whether an image of this type and size can be returned as
// an image block (as it is, or as a preview).
func CanEmbed(mimeType string, size int) bool {
	return embeddable[mimeType] && size <= EmbedLimit || previewable[mimeType]
}

// EmbedImage makes an image block of an image file: the file itself when
// it is a PNG, JPEG, GIF or WebP within EmbedLimit, else a downscaled JPEG
// preview under it (PNG, JPEG and GIF), as browser_screenshot does.
func EmbedImage(data []byte, mimeType string) (*Embedded, error) {
	cfg, _, cfgErr := image.DecodeConfig(bytes.NewReader(data))
	if embeddable[mimeType] && len(data) <= EmbedLimit {
		return &Embedded{Data: data, MIMEType: mimeType, Width: cfg.Width, Height: cfg.Height}, nil
	}
	if !previewable[mimeType] {
		return nil, fmt.Errorf("a %s image cannot be embedded", mimeType)
	}
	if cfgErr != nil {
		return nil, fmt.Errorf("decode the image: %w", cfgErr)
	}
	if cfg.Width*cfg.Height > maxPreviewPixels {
		return nil, fmt.Errorf("the image is %d×%d: too large to make a preview of", cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode the image: %w", err)
	}
	// As for screenshots: scale so the preview's area shrinks in proportion
	// to the bytes over the limit, then keep shrinking (and lowering
	// quality) until it fits.
	scale := firstPreviewScale(len(data))
	quality := DefaultJPEGQuality
	for range 8 {
		w, h := max(1, int(float64(cfg.Width)*scale)), max(1, int(float64(cfg.Height)*scale))
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, shrink(src, w, h), &jpeg.Options{Quality: quality}); err != nil {
			return nil, fmt.Errorf("encode the preview: %w", err)
		}
		if buf.Len() <= EmbedLimit {
			return &Embedded{Data: buf.Bytes(), MIMEType: "image/jpeg", Preview: true, Width: w, Height: h}, nil
		}
		scale *= nextPreviewScale(buf.Len())
		quality = max(20, quality-10)
	}
	return nil, fmt.Errorf("could not make a preview under %d KB", EmbedLimit/1024)
}

// firstPreviewScale is the first scale of a preview of an image of n
// bytes; nextPreviewScale how much more to shrink a preview of n bytes
// still over EmbedLimit. Screenshots and downloaded images share them.
func firstPreviewScale(n int) float64 {
	return math.Min(1, math.Sqrt(0.7*float64(EmbedLimit)/float64(n)))
}

func nextPreviewScale(n int) float64 {
	return math.Min(0.8, math.Sqrt(0.8*float64(EmbedLimit)/float64(n)))
}

// shrink scales src to w×h by averaging the source pixels under each
// target pixel, over white (JPEG has no transparency).
func shrink(src image.Image, w, h int) image.Image {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	rgba := image.NewRGBA(image.Rect(0, 0, sw, sh))
	draw.Draw(rgba, rgba.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(rgba, rgba.Bounds(), src, src.Bounds().Min, draw.Over)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl, n uint32
			for sy := y0; sy < y1; sy++ {
				row := rgba.Pix[sy*rgba.Stride:]
				for sx := x0; sx < x1; sx++ {
					p := row[sx*4:]
					r, g, bl, n = r+uint32(p[0]), g+uint32(p[1]), bl+uint32(p[2]), n+1
				}
			}
			o := dst.PixOffset(x, y)
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = uint8(r/n), uint8(g/n), uint8(bl/n), 255
		}
	}
	return dst
}
