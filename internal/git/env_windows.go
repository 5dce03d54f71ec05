package git

// systemPath is nothing after git's own folder: Windows has no /usr/bin,
// and Git for Windows' git.exe (cmd\git.exe, bin\git.exe) puts its own
// folders (mingw64\bin, usr\bin) on the PATH of what it starts.
var systemPath []string

// systemEnv are the variables of the job's environment that git needs on
// Windows besides keptEnv: the temporary folder (TEMP, TMP: Windows has
// no TMPDIR) and the home git takes when HOME is unset (USERPROFILE,
// HOMEDRIVE, HOMEPATH).
var systemEnv = []string{"TEMP", "TMP", "USERPROFILE", "HOMEDRIVE", "HOMEPATH"}
