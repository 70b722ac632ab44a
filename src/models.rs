//! The models the pipeline runs: the face detector (YuNet), the Haar eye
//! cascade and the head-pose model (SMA). Found and checked once, with one
//! warning for each that is missing or damaged (the pipeline then works
//! without it: the older search, no confirmation, no pose), and handed to
//! every pipeline made after ([`crate::pipeline::Pipeline::new`]).

use std::path::PathBuf;

use crate::pose::Sma;
use crate::vision::face::FaceDetector;
use crate::vision::haar::EyeConfirmer;

/// The models, found and checked.
#[derive(Debug, Clone, Default)]
pub struct Models {
    /// The YuNet face detector file, checked to load and run.
    pub face: Option<PathBuf>,
    /// The Haar eye cascade file, checked to load.
    pub eye_cascade: Option<PathBuf>,
    /// The head-pose model.
    pub pose: Option<Sma>,
}

impl Models {
    /// Finds and checks every model; logs one warning for each that is
    /// missing or damaged.
    #[must_use]
    pub fn load() -> Self {
        let face = match FaceDetector::find().and_then(|p| FaceDetector::from_path(&p).map(|_| p)) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        };
        let pose = match crate::pose::load(&crate::pose::default_model_path()) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::warn!("{e}; head pose is off");
                None
            }
        };
        Self { face, eye_cascade: EyeConfirmer::find(), pose }
    }

    /// No models at all: what the pipeline does when every file is missing.
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// A face detector for one pipeline (none without the model).
    #[must_use]
    pub fn face_detector(&self) -> FaceDetector {
        self.face.as_deref().map_or_else(FaceDetector::unavailable, |p| {
            FaceDetector::from_path(p).unwrap_or_else(|e| {
                tracing::warn!("{e}");
                FaceDetector::unavailable()
            })
        })
    }

    /// An eye confirmer for one pipeline (one that confirms everything without the cascade).
    #[must_use]
    pub fn eye_confirmer(&self) -> EyeConfirmer {
        self.eye_cascade.as_deref().map_or_else(EyeConfirmer::unavailable, EyeConfirmer::from_path)
    }
}
