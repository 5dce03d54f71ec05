package verify

// sameOwner does nothing: files have no uid here.
func sameOwner(dir, parent string) error { return nil }
