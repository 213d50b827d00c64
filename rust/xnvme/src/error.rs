//! Errors: an errno from the library or the operating system, or an NVMe completion status.

use std::fmt;

/// What a failed operation reports.
///
/// * [`Error::Errno`]: the library or the operating system refused or failed the operation
///   (positive errno value, e.g. `libc::EINVAL`, `libc::ENOSYS` for a mechanism this build or
///   kernel does not have). Completions whose status type is 7 carry an errno in the status
///   code (the library reports kernel errors of asynchronous mechanisms that way) and are
///   reported as `Errno` too.
/// * [`Error::Status`]: the command reached the (real or emulated) controller and completed
///   with an NVMe status: status code type, status code and its name from the NVMe
///   specification (`"LBA Out of Range"` for sct 0 / sc 0x80).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// A positive errno value.
    Errno(i32),
    /// An NVMe completion status.
    Status {
        /// Status Code Type (0 generic, 1 command specific, 2 media and data integrity, ...).
        sct: u8,
        /// Status Code.
        sc: u8,
        /// Name of the status in the NVMe specification, `"Unknown Status"` when not known.
        name: &'static str,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An NVMe status error with its name filled in.
    pub fn status(sct: u8, sc: u8) -> Error {
        Error::Status { sct, sc, name: status_name(sct, sc) }
    }

    /// The errno of an [`Error::Errno`], `None` for a status.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Errno(e) => Some(*e),
            Error::Status { .. } => None,
        }
    }

    /// True for an NVMe status with this type and code.
    pub fn is_status(&self, sct: u8, sc: u8) -> bool {
        matches!(self, Error::Status { sct: t, sc: c, .. } if *t == sct && *c == sc)
    }

    /// Errno of the last failed libc call (falls back to EIO).
    pub(crate) fn last_os() -> Error {
        Error::Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Errno(e) => write!(f, "errno {e}: {}", std::io::Error::from_raw_os_error(*e)),
            Error::Status { sct, sc, name } => {
                write!(f, "NVMe status sct 0x{sct:x} sc 0x{sc:02x}: {name}")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Errno(n) => std::io::Error::from_raw_os_error(n),
            s @ Error::Status { .. } => std::io::Error::other(s),
        }
    }
}

/// Name of an NVMe status in the specification (generic, command specific, media and data
/// integrity; command-set specific generic codes of the NVM, zoned and key-value sets).
pub fn status_name(sct: u8, sc: u8) -> &'static str {
    match (sct, sc) {
        (0, 0x00) => "Successful Completion",
        (0, 0x01) => "Invalid Command Opcode",
        (0, 0x02) => "Invalid Field in Command",
        (0, 0x03) => "Command ID Conflict",
        (0, 0x04) => "Data Transfer Error",
        (0, 0x05) => "Commands Aborted due to Power Loss Notification",
        (0, 0x06) => "Internal Error",
        (0, 0x07) => "Command Abort Requested",
        (0, 0x08) => "Command Aborted due to SQ Deletion",
        (0, 0x09) => "Command Aborted due to Failed Fused Command",
        (0, 0x0A) => "Command Aborted due to Missing Fused Command",
        (0, 0x0B) => "Invalid Namespace or Format",
        (0, 0x0C) => "Command Sequence Error",
        (0, 0x0D) => "Invalid SGL Segment Descriptor",
        (0, 0x0F) => "Data SGL Length Invalid",
        (0, 0x15) => "Operation Denied",
        (0, 0x80) => "LBA Out of Range",
        (0, 0x81) => "Capacity Exceeded",
        (0, 0x82) => "Namespace Not Ready",
        (0, 0x83) => "Reservation Conflict",
        (0, 0x84) => "Format In Progress",
        (0, 0x85) => "Invalid Value Size",
        (0, 0x86) => "Invalid Key Size",
        (0, 0x87) => "KV Key Does Not Exist",
        (0, 0x88) => "Unrecovered Error",
        (0, 0x89) => "Key Exists",
        (1, 0x00) => "Completion Queue Invalid",
        (1, 0x01) => "Invalid Queue Identifier",
        (1, 0x02) => "Invalid Queue Size",
        (1, 0x09) => "Invalid Log Page",
        (1, 0x0A) => "Invalid Format",
        (1, 0x0D) => "Feature Identifier Not Saveable",
        (1, 0x0E) => "Feature Not Changeable",
        (1, 0x0F) => "Feature Not Namespace Specific",
        (1, 0x80) => "Conflicting Attributes",
        (1, 0x81) => "Invalid Protection Information",
        (1, 0x82) => "Attempted Write to Read Only Range",
        (1, 0xB8) => "Zone Boundary Error",
        (1, 0xB9) => "Zone Is Full",
        (1, 0xBA) => "Zone Is Read Only",
        (1, 0xBB) => "Zone Is Offline",
        (1, 0xBC) => "Zone Invalid Write",
        (1, 0xBD) => "Too Many Active Zones",
        (1, 0xBE) => "Too Many Open Zones",
        (1, 0xBF) => "Invalid Zone State Transition",
        (2, 0x80) => "Write Fault",
        (2, 0x81) => "Unrecovered Read Error",
        (2, 0x82) => "End-to-end Guard Check Error",
        (2, 0x83) => "End-to-end Application Tag Check Error",
        (2, 0x84) => "End-to-end Reference Tag Check Error",
        (2, 0x85) => "Compare Failure",
        (2, 0x86) => "Access Denied",
        (2, 0x87) => "Deallocated or Unwritten Logical Block",
        _ => "Unknown Status",
    }
}
