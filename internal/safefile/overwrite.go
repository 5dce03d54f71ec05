package safefile

import "os"

// OverwriteUnder writes content over the file at path, below root, in one
// write at its start, when it is a regular file of one link that holds as
// many bytes as content (a record that changes but keeps its length, such
// as one holding a commit id): no new file is made, whose inode the file
// system must find (ext4 without a journal looks past every recently
// deleted one). It tells whether it did; when not (no such file, a link,
// a file of other links or of another length), the caller replaces the
// file (ReplaceUnder). Call it only where nothing reads the file
// meanwhile: a reader could see a part of the old content.
func OverwriteUnder(root, path string, content []byte) bool {
	f, err := OpenSoleUnder(root, path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != int64(len(content)) {
		return false
	}
	n, err := f.WriteAt(content, 0)
	return err == nil && n == len(content)
}
