//! Reading patch text: files, `-` or stdin, with a size limit and a clear error for
//! anything that is not UTF-8 text.

use std::io::Read;
use std::path::Path;

/// Larger inputs are refused: no agent writes a 64 MiB patch on purpose.
pub const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// One patch text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file name, or `<stdin>`.
    pub name: String,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{name} is larger than {MAX_INPUT} bytes")]
    TooLarge { name: String },
    #[error("{name} is not UTF-8 text (byte {offset})")]
    NotUtf8 { name: String, offset: usize },
}

/// Read each source (`-` is stdin); no sources means stdin. Relative paths are taken
/// relative to `base` (the `-C` directory).
pub fn read(sources: &[String], base: &Path) -> Result<Vec<Input>, InputError> {
    if sources.is_empty() {
        return Ok(vec![read_stdin()?]);
    }
    sources
        .iter()
        .map(|s| {
            if s == "-" {
                read_stdin()
            } else {
                read_file(&base.join(s), s)
            }
        })
        .collect()
}

fn read_stdin() -> Result<Input, InputError> {
    let name = "<stdin>".to_string();
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut buf)
        .map_err(|source| InputError::Io {
            name: name.clone(),
            source,
        })?;
    decode(name, buf)
}

fn read_file(path: &Path, name: &str) -> Result<Input, InputError> {
    let f = std::fs::File::open(path).map_err(|source| InputError::Io {
        name: name.to_string(),
        source,
    })?;
    let mut buf = Vec::new();
    f.take(MAX_INPUT + 1)
        .read_to_end(&mut buf)
        .map_err(|source| InputError::Io {
            name: name.to_string(),
            source,
        })?;
    decode(name.to_string(), buf)
}

fn decode(name: String, buf: Vec<u8>) -> Result<Input, InputError> {
    if buf.len() as u64 > MAX_INPUT {
        return Err(InputError::TooLarge { name });
    }
    match String::from_utf8(buf) {
        Ok(text) => Ok(Input { name, text }),
        Err(e) => Err(InputError::NotUtf8 {
            name,
            offset: e.utf8_error().valid_up_to(),
        }),
    }
}
