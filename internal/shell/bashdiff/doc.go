// Package bashdiff tests the shell analysis (package shell) against the
// real bash: it runs command strings under /usr/bin/bash and compares what
// bash actually did with what [shell.Analyze] says the command does. Any
// program run, file written or file read that the analysis did not report
// is a failure.
//
// # The sandbox
//
// [New] lays out a directory with a shim directory (bin), copies of bash
// and strace (tools) and a pristine copy of the fixture (ref), then starts
// helpers: the test binary itself, re-executed ([RunHelperIfRequested]) in
// new user, mount, pid, network, IPC and UTS namespaces, as root of its
// user namespace mapped to the invoking user (or to nobody when the tests
// run as root). Each helper
//
//   - mounts the shim directory over /usr/bin, /usr/sbin, /usr/local/bin
//     and the like, so every program name and every absolute program path
//     (/bin/rm, /usr/bin/env) reaches a shim or a chosen real tool;
//   - mounts small tmpfs file systems for the fixture (the home directory
//     with proj/ as working directory, .env, .git/hooks, src/, ...) and for
//     the strace logs;
//   - makes every other mount read-only and nosuid (mount_setattr with
//     AT_RECURSIVE), then proves it by failing to create files in /tmp,
//     /etc, /usr/bin and the sandbox directory;
//   - runs each command as strace -f -ff ... bash --norc --noprofile -c CMD
//     with the environment PATH=/usr/bin, HOME and TMPDIR only, inside a
//     nested user and mount namespace (so no program can undo the
//     read-only mounts), with a time limit, then kills whatever is left in
//     its pid namespace.
//
// The shim is a tiny static executable that exits 0 (a Go program where no
// built-in one exists for the architecture). A few programs run for real
// ([RealTools]: bash, dash as sh, env, timeout, nice, nohup, stdbuf, xargs,
// setsid, flock, GNU time, ionice, chrt, taskset, find, sed, awk, sort) so
// that their option parsing and what they run, write and read is the
// ground truth too. Names bash looks for and does not find get a shim and
// the command is run again.
//
// # What is recorded
//
// From the strace logs ([Event]): every execve (successful or not), every
// open for writing, creat, truncate, rename, link, unlink, mkdir and rmdir,
// and every open for reading without O_CLOEXEC or O_DIRECTORY (bash's <
// redirections, source, $(<f), scripts given to a shell, sed's input...;
// the loader, locale and NSS files are opened with O_CLOEXEC). Activity of
// a process after it executed a shim or a user script is not bash's and is
// dropped; /dev/null, descriptors, /proc/*/fd and bash's here-document
// temporary files are not files.
//
// # The comparison
//
// [Compare]: every executed program must be one of the analysed commands
// (by the base name of the file executed and the arguments; a non-static or
// expandable word stands for any number of arguments), every file written
// must be covered by some Writes or Redirects entry (or, for a command
// marked MayWrite, one of its ArgPaths), every file read by
// some Reads or ArgPaths entry (an entry that cannot be placed covers any
// path, a directory covers what is under it, a glob what it matches), and
// a command string the analysis calls read-only must write nothing.
// Activity that comes from code the analysis declared it cannot read is
// excused: a program running in the process or one of its ancestors is a
// command reported unanalysable (python3 -c, bash -c "$x", a shell reading
// its program from a pipe) or one that runs a script file and is marked
// ExactOnly (bash script.sh, source FILE: a black box only an exact rule
// approves), or is no analysed command at all (its own exec is the
// failure), or, in a shell's own process, some such builtin that runs
// code in place (eval "$x", source, trap, ...) was reported. When the whole string is unanalysable (a
// parse error), failures are kept but marked with [SuffixUnparsed].
//
// # Inputs
//
// The test runs the project's corpus ([CorpusCommands]), the minimal open
// findings in testdata/findings.txt and the fixed ones in
// testdata/fixed.txt, 5,000 commands of the grammar-based
// [Generator] (flags -bashdiff.seed, -bashdiff.count, -bashdiff.only,
// -bashdiff.cmd, -bashdiff.minimize, -bashdiff.failures, -bashdiff.v) and
// the fuzz target FuzzBashDiff. Without bash, strace or user namespaces it
// skips, unless CI is set, when it fails.
package bashdiff
