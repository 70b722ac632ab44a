//! The laboratory: the tools that measure and train the product, never part
//! of it. Labelled sequences and their scores (`eval`, `labels`), generated
//! faces (`synth`), slower and smaller copies of recordings (`resample`), the
//! simulated pointing user (`pointer_eval`), and the head-pose model's
//! training and evaluation (`pose_train`, `pose_eval`).
//!
//! The product's modules never call into `lab`; only the command line (its
//! `eval`, `synth`, `train-pose` … commands), the tests and the benches do.

pub mod ahm_eval;
pub mod eval;
pub mod keyboard_eval;
pub mod labels;
pub mod pointer_eval;
pub mod pose_eval;
pub mod pose_train;
pub mod resample;
pub mod synth;
pub mod turn_eval;
