package originals

import "fmt"

// FileName is the name, inside the directory, of md5's original: the
// only names a directory of originals holds. An md5 that is not 32
// lower-case hexadecimal digits is an error (a backup's list of files
// is checked with it before anything is written).
func FileName(md5 string) (string, error) {
	if !md5Name.MatchString(md5) {
		return "", fmt.Errorf("originals: %q is not a lower-case hexadecimal MD5", md5)
	}
	return md5 + ".pdf", nil
}
