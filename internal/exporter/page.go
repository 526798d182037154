package exporter

import (
	"io"
	"strconv"
)

// pageWriter writes the lines of one family at a time to w through a
// small buffer: the group families are written from the groups' state at
// each scrape, so no copy of their text is kept between scrapes (at 500
// groups x 1,000 partitions the text was about 90 MB, held twice while a
// gather built the next one; bench/exporter.md).
type pageWriter struct {
	w       io.Writer
	buf     []byte
	f       *family
	cluster string
	helped  bool // f's HELP and TYPE are written
	err     error
}

// pageFlush is the buffer size at which pageWriter writes to w.
const pageFlush = 64 << 10

// family starts family f: its HELP and TYPE come before its first line.
func (pw *pageWriter) family(f *family) {
	pw.f, pw.helped = f, false
}

// add writes one line of the current family.
func (pw *pageWriter) add(v float64, values ...string) {
	if pw.err != nil {
		return
	}
	pw.help()
	pw.buf = appendSample(pw.buf, pw.f, pw.cluster, v, values...)
	if len(pw.buf) >= pageFlush {
		pw.flush()
	}
}

// raw writes lines of the current family already in the text format.
func (pw *pageWriter) raw(b []byte) {
	if len(b) == 0 || pw.err != nil {
		return
	}
	pw.help()
	pw.flush()
	if pw.err == nil {
		_, pw.err = pw.w.Write(b)
	}
}

// line writes one line of the current family: head, the number n, tail,
// the value (writeRows' labels, escaped once per group and topic).
//
// Once a write has failed (the scraper went away or timed out), nothing
// more is formatted: a family of 500,000 lines went on being formatted
// for nobody, ~22 ms of CPU for each scrape cut short.
func (pw *pageWriter) line(head []byte, n int64, tail []byte, v float64) {
	if pw.err != nil {
		return
	}
	pw.help()
	b := append(pw.buf, head...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, tail...)
	b = appendValue(b, v)
	pw.buf = append(b, '\n')
	if len(pw.buf) >= pageFlush {
		pw.flush()
	}
}

func (pw *pageWriter) help() {
	if pw.helped {
		return
	}
	pw.helped = true
	pw.buf = appendHelp(pw.buf, pw.f)
}

// flush writes the buffer to w; after an error (the scraper went away)
// nothing more is written.
func (pw *pageWriter) flush() {
	if pw.err == nil && len(pw.buf) > 0 {
		_, pw.err = pw.w.Write(pw.buf)
	}
	pw.buf = pw.buf[:0]
}
