//! Reading a kernel file (`/proc`, `/sys`, tracefs) the way the kernel expects it to be read.
//!
//! Many kernel files are produced whole by their read handler and copied out with
//! `simple_read_from_buffer`; some of those handlers refuse a read whose buffer is not larger
//! than the file's text. The osnoise tracer's `osnoise/cpus` is one: on Linux 6.1 and 6.12 a
//! `read(fd, buf, 4)` of `0-1\n` fails with `EINVAL` (`dd bs=4` fails, `bs=5` works), and
//! so does a *second* read at the end of the text when its buffer is that small. A reader
//! that starts with a small probe, as `std::io::Read::read_to_end` does, hits that with
//! any text shorter than its probe's spare room.
//!
//! [`read_bounded`] therefore offers every `read` at least a page, and more as the text
//! grows (each read at least as large as what was already read, so a large file takes few
//! calls); a read refused with `EINVAL` is tried again, once per step, with a buffer 16
//! times as large up to the bound, for a handler whose text is longer than a page.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The smallest buffer a read is offered: a page on every Linux architecture rtlat runs on.
pub const MIN_READ: usize = 4096;

/// The file's bytes, at most `max` of them (the rest is not read): every `read` is offered
/// at least [`MIN_READ`] bytes (see the module's docs).
pub fn read_bounded(path: &Path, max: usize) -> io::Result<Vec<u8>> {
    read_from(&mut File::open(path)?, max)
}

/// [`read_bounded`] on an open reader, from its current position.
pub fn read_from(reader: &mut impl Read, max: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut room = MIN_READ;
    while bytes.len() < max {
        let len = bytes.len();
        let offer = room.max(len).max(MIN_READ);
        bytes.resize(len + offer, 0);
        match reader.read(&mut bytes[len..]) {
            Ok(0) => {
                bytes.truncate(len);
                break;
            }
            Ok(n) => bytes.truncate(len + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => bytes.truncate(len),
            // The handler wants a larger buffer than the text it holds; offer one, up to the
            // bound (past it, the file is too large to read anyway).
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && offer < max => {
                bytes.truncate(len);
                room = offer.saturating_mul(16).min(max);
            }
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(max);
    Ok(bytes)
}

/// [`read_bounded`] as text (invalid UTF-8, e.g. in a task name, replaced by U+FFFD).
pub fn read_text(path: &Path, max: usize) -> io::Result<String> {
    let bytes = read_bounded(path, max)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose read handler behaves like `osnoise_cpus_read`: the whole text or
    /// nothing, `EINVAL` for a buffer not larger than the text (also at its end).
    struct WholeOrNothing {
        text: Vec<u8>,
        at: usize,
        reads: Vec<usize>,
    }

    impl WholeOrNothing {
        fn new(text: &[u8]) -> Self {
            WholeOrNothing {
                text: text.to_vec(),
                at: 0,
                reads: Vec::new(),
            }
        }
    }

    impl Read for WholeOrNothing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.reads.push(buf.len());
            if self.text.len() >= buf.len() {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            let rest = &self.text[self.at..];
            buf[..rest.len()].copy_from_slice(rest);
            self.at = self.text.len();
            Ok(rest.len())
        }
    }

    #[test]
    fn std_read_to_end_fails_on_such_a_file_and_this_reads_it() {
        // The defect this module exists for: std's reader offers a buffer too small.
        let mut std_way = Vec::new();
        let failed = WholeOrNothing::new(b"0-1\n").read_to_end(&mut std_way);
        assert_eq!(failed.unwrap_err().raw_os_error(), Some(libc::EINVAL));

        let mut file = WholeOrNothing::new(b"0-1\n");
        assert_eq!(read_from(&mut file, 1 << 16).unwrap(), b"0-1\n");
        assert!(
            file.reads.iter().all(|&n| n >= MIN_READ),
            "{:?}",
            file.reads
        );
        assert_eq!(
            file.reads.len(),
            2,
            "the text, then the end: {:?}",
            file.reads
        );
    }

    #[test]
    fn a_text_longer_than_a_page_is_read_with_a_larger_buffer() {
        let text = vec![b'x'; 10_000];
        let mut file = WholeOrNothing::new(&text);
        assert_eq!(read_from(&mut file, 1 << 20).unwrap(), text);
        assert_eq!(file.reads[0], MIN_READ);
        assert_eq!(file.reads[1], MIN_READ * 16);
        // Past the bound the handler's refusal stands.
        let mut file = WholeOrNothing::new(&text);
        let refused = read_from(&mut file, 8192).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(libc::EINVAL));
    }

    #[test]
    fn the_bound_is_kept_and_large_files_take_few_reads() {
        let text: Vec<u8> = (0..1_000_000u32).map(|i| i as u8).collect();
        let mut reader = io::Cursor::new(text.clone());
        assert_eq!(read_from(&mut reader, 1000).unwrap(), &text[..1000]);
        let mut reader = io::Cursor::new(text.clone());
        assert_eq!(read_from(&mut reader, usize::MAX).unwrap(), text);
        // Sizes double: about log2(1 MB / 4 KiB) + 1 reads, not 245.
        struct Counting<R>(R, usize);
        impl<R: Read> Read for Counting<R> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.1 += 1;
                self.0.read(buf)
            }
        }
        let mut counting = Counting(io::Cursor::new(text), 0);
        read_from(&mut counting, usize::MAX).unwrap();
        assert!(counting.1 <= 12, "{} reads", counting.1);
    }

    #[test]
    fn interrupted_reads_are_retried_and_other_errors_returned() {
        struct Flaky(u8);
        impl Read for Flaky {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.0 += 1;
                match self.0 {
                    1 => Err(io::Error::from(io::ErrorKind::Interrupted)),
                    2 => {
                        buf[0] = b'a';
                        Ok(1)
                    }
                    3 => Ok(0),
                    _ => unreachable!(),
                }
            }
        }
        assert_eq!(read_from(&mut Flaky(0), 100).unwrap(), b"a");
        struct Denied;
        impl Read for Denied {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::from_raw_os_error(libc::EACCES))
            }
        }
        assert_eq!(
            read_from(&mut Denied, 100).unwrap_err().raw_os_error(),
            Some(libc::EACCES)
        );
    }

    #[test]
    fn live_proc_files_read_whole() {
        let text = read_text(Path::new("/proc/self/status"), 1 << 20).unwrap();
        assert!(text.starts_with("Name:"), "{text}");
        assert!(text.contains("\nCpus_allowed_list:"), "{text}");
    }
}
