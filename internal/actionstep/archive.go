package actionstep

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
)

// TarGz packs one executable file, name, the way the release archives
// (.tar.gz) hold it, for tests that serve a release to the Action's
// install step. It compresses for speed: a test's binary may be large.
func TarGz(name string, body []byte) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(body); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
