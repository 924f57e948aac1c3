package providers

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads their headers
	_ "image/jpeg"
	_ "image/png"
	"net/http"
)

// imageRules are what a provider takes of the images of one tool result.
// A provider checks an image against its limits when the request comes
// and refuses the whole request for one it does not take; the image stays
// in the conversation, so that every later request would fail too. What
// the rules do not let through is described in words instead.
type imageRules struct {
	maxEncoded int // the largest image, counted as its base64 text; 0: no images
	maxTotal   int // every image of the result together, likewise
	maxCount   int // images in one result
	maxSide    int // pixels on either side; 0: not checked
	still      bool
}

var (
	// Anthropic: JPEG, PNG, GIF and WebP, each at most 5 MB of base64
	// ("image exceeds 5 MB maximum: … bytes > 5242880 bytes") and 8000
	// pixels a side; the request at most 32 MB.
	anthropicImages = imageRules{maxEncoded: 5 << 20, maxTotal: 20 << 20, maxCount: 20, maxSide: 8000}
	// OpenAI's Responses API: PNG, JPEG, WebP and non-animated GIF, each
	// at most 20 MB, at most 50 MB of images and 500 images in a request
	// (counted here on the base64 text, in decimal megabytes, to be safe).
	responsesImages = imageRules{maxEncoded: 20_000_000, maxTotal: 50_000_000, maxCount: 500, still: true}
)

// imageTypes are the image types both providers take.
var imageTypes = map[string]string{
	"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WebP",
}

// check decides about one image of a result, given what the earlier
// ones took (count, total): the media type to send it as (what its bytes
// are, whatever the server declared), or why it cannot be sent.
func (r imageRules) check(data []byte, count, total int) (mime, why string) {
	if r.maxEncoded == 0 {
		return "", "not passed on"
	}
	enc := base64.StdEncoding.EncodedLen(len(data))
	switch {
	case enc > r.maxEncoded:
		return "", fmt.Sprintf("%d bytes as base64, over the provider's limit of %d", enc, r.maxEncoded)
	case count >= r.maxCount || total+enc > r.maxTotal:
		return "", "over the provider's limit for the images of one result"
	}
	mime = http.DetectContentType(data)
	if imageTypes[mime] == "" {
		return "", "its data is not a JPEG, PNG, GIF or WebP image"
	}
	w, h, ok := imageSize(data, mime)
	switch {
	case !ok:
		return "", "its data is not a readable " + imageTypes[mime] + " image"
	case r.maxSide > 0 && (w > r.maxSide || h > r.maxSide):
		return "", fmt.Sprintf("%dx%d pixels, over the provider's limit of %d a side", w, h, r.maxSide)
	case r.still && mime == "image/gif" && gifFrames(data) > 1:
		return "", "an animated GIF, which the provider does not take"
	}
	return mime, ""
}

// imageSize reads an image's size from its header.
func imageSize(data []byte, mime string) (w, h int, ok bool) {
	if mime == "image/webp" {
		return webpSize(data)
	}
	c, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return c.Width, c.Height, c.Width > 0 && c.Height > 0
}

// webpSize reads the size of a WebP image from its first chunk: VP8X
// (extended), VP8L (lossless) or VP8 (lossy).
func webpSize(d []byte) (w, h int, ok bool) {
	if len(d) < 30 || string(d[0:4]) != "RIFF" || string(d[8:12]) != "WEBP" {
		return 0, 0, false
	}
	u24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
	switch string(d[12:16]) {
	case "VP8X":
		return u24(d[24:27]) + 1, u24(d[27:30]) + 1, true
	case "VP8L":
		if d[20] != 0x2f {
			return 0, 0, false
		}
		b := binary.LittleEndian.Uint32(d[21:25])
		return int(b&0x3fff) + 1, int(b>>14&0x3fff) + 1, true
	case "VP8 ":
		if d[23] != 0x9d || d[24] != 0x01 || d[25] != 0x2a {
			return 0, 0, false
		}
		w = int(binary.LittleEndian.Uint16(d[26:28]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(d[28:30]) & 0x3fff)
		return w, h, w > 0 && h > 0
	}
	return 0, 0, false
}

// gifFrames counts a GIF's frames, up to 2 (enough to tell an animation),
// walking its blocks without decoding them; 0 for data it cannot walk.
func gifFrames(d []byte) int {
	if len(d) < 13 || !bytes.HasPrefix(d, []byte("GIF87a")) && !bytes.HasPrefix(d, []byte("GIF89a")) {
		return 0
	}
	i := 13
	if d[10]&0x80 != 0 { // a global color table
		i += 3 << (d[10]&7 + 1)
	}
	frames := 0
	for i < len(d) && frames < 2 {
		switch d[i] {
		case 0x3b: // trailer
			return frames
		case 0x21: // extension: a label, then data sub-blocks
			i = skipSubBlocks(d, i+2)
		case 0x2c: // image descriptor, color table, LZW code size, data
			frames++
			if i+10 > len(d) {
				return frames
			}
			flags := d[i+9]
			i += 10
			if flags&0x80 != 0 {
				i += 3 << (flags&7 + 1)
			}
			i = skipSubBlocks(d, i+1)
		default:
			return frames
		}
	}
	return frames
}

// skipSubBlocks returns the index past the data sub-blocks at i.
func skipSubBlocks(d []byte, i int) int {
	for i < len(d) {
		n := int(d[i])
		i++
		if n == 0 {
			break
		}
		i += n
	}
	return i
}
