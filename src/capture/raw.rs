//! A camera's own bytes to grey, with no colour round trip.
//!
//! The vision reads grey only. A camera's MJPEG frame holds its grey (the
//! luma) as is, and a YUYV or NV12 frame holds it as every other byte or
//! as its first plane. Decoding to colour, then to BGR, then to grey paid
//! for chroma, two conversions and two frame-sized copies on every frame;
//! the grey is now taken straight, and the colour picture is made from the
//! bytes kept beside it only when the window shows one (a few times a
//! second, never while it is hidden).

use opencv::core::{Mat, Size};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;

/// The layout of a camera's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawFormat {
    /// A JPEG image.
    Mjpeg,
    /// Packed 4:2:2: Y0 U Y1 V.
    Yuyv,
    /// A Y plane, then interleaved UV at half resolution.
    Nv12,
    /// One byte a pixel.
    Gray,
    /// Three bytes a pixel, red first.
    Rgb,
    /// Three bytes a pixel, blue first.
    Bgr,
}

/// A frame as the camera delivered it, kept for the preview's colour.
#[derive(Debug, Default)]
pub struct RawImage {
    pub format: Option<RawFormat>,
    pub bytes: Vec<u8>,
    pub width: i32,
    pub height: i32,
}

impl RawImage {
    /// Keeps a copy of `bytes` (reusing the buffer).
    pub fn set(&mut self, format: RawFormat, bytes: &[u8], width: i32, height: i32) {
        self.format = Some(format);
        self.bytes.clear();
        self.bytes.extend_from_slice(bytes);
        (self.width, self.height) = (width, height);
    }

    /// Forgets the image (the frame's colour came another way).
    pub fn clear(&mut self) {
        self.format = None;
        self.bytes.clear();
    }
}

/// The first `width`×`height`×`cn` bytes as one row of bytes per image
/// row (`reshape(cn, 0)` gives the pixels), or `None` when they are not all there.
fn rows(bytes: &[u8], cn: i32, width: i32, height: i32) -> Result<Option<opencv::boxed_ref::BoxedRef<'_, Mat>>, opencv::Error> {
    let need = usize::try_from(width).unwrap_or(0) * usize::try_from(height).unwrap_or(0) * usize::try_from(cn).unwrap_or(0);
    if need == 0 || bytes.len() < need {
        return Ok(None);
    }
    Ok(Some(Mat::new_rows_cols_with_data(height, width * cn, &bytes[..need])?))
}

/// Whether a JPEG ends with its end marker (cameras may pad after it).
fn whole_jpeg(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xD8]) && bytes[bytes.len().saturating_sub(4096)..].windows(2).any(|w| w == [0xFF, 0xD9])
}

/// Fills `gray` (`width`×`height`) from a camera's bytes. `Ok(false)` when
/// they do not hold a whole frame of that size (then nothing is promised
/// of `gray`): the caller decodes the frame another way.
///
/// # Errors
/// OpenCV failures.
pub fn to_gray(format: RawFormat, bytes: &[u8], width: i32, height: i32, gray: &mut Mat) -> Result<bool, opencv::Error> {
    match format {
        RawFormat::Mjpeg => {
            // libjpeg fills a cut frame with grey and says nothing.
            if !whole_jpeg(bytes) {
                return Ok(false);
            }
            // libjpeg decodes the luma alone: no chroma, no colour conversion.
            let buf = Mat::from_slice(bytes)?;
            let decoded = imgcodecs::imdecode_to(&buf, imgcodecs::IMREAD_GRAYSCALE, gray);
            Ok(decoded.is_ok() && gray.cols() == width && gray.rows() == height)
        }
        RawFormat::Yuyv => {
            let Some(m) = rows(bytes, 2, width, height)? else { return Ok(false) };
            imgproc::cvt_color_def(&m.reshape(2, 0)?, gray, imgproc::COLOR_YUV2GRAY_YUYV)?;
            Ok(true)
        }
        RawFormat::Nv12 | RawFormat::Gray => {
            let Some(m) = rows(bytes, 1, width, height)? else { return Ok(false) };
            m.copy_to(gray)?;
            Ok(true)
        }
        RawFormat::Rgb | RawFormat::Bgr => {
            let Some(m) = rows(bytes, 3, width, height)? else { return Ok(false) };
            let code = if format == RawFormat::Rgb { imgproc::COLOR_RGB2GRAY } else { imgproc::COLOR_BGR2GRAY };
            imgproc::cvt_color_def(&m.reshape(3, 0)?, gray, code)?;
            Ok(true)
        }
    }
}

/// The colour picture (8-bit BGR) of a kept camera frame. `Ok(false)`
/// when it cannot be made.
///
/// # Errors
/// OpenCV failures.
pub fn to_bgr(raw: &RawImage, out: &mut Mat) -> Result<bool, opencv::Error> {
    let (w, h) = (raw.width, raw.height);
    let bytes = raw.bytes.as_slice();
    let Some(format) = raw.format else { return Ok(false) };
    let converted = |cn: i32, code: i32, out: &mut Mat| -> Result<bool, opencv::Error> {
        match rows(bytes, cn, w, h)? {
            Some(m) => imgproc::cvt_color_def(&m.reshape(cn, 0)?, out, code).map(|()| true),
            None => Ok(false),
        }
    };
    match format {
        RawFormat::Mjpeg => {
            let buf = Mat::from_slice(bytes)?;
            Ok(imgcodecs::imdecode_to(&buf, imgcodecs::IMREAD_COLOR, out).is_ok() && out.size()? == Size::new(w, h))
        }
        RawFormat::Yuyv => converted(2, imgproc::COLOR_YUV2BGR_YUYV, out),
        RawFormat::Nv12 => {
            // The Y plane and the UV rows below it, as one image of 1.5 × the height.
            if w % 2 != 0 || h % 2 != 0 {
                return Ok(false);
            }
            match rows(bytes, 1, w, h * 3 / 2)? {
                Some(m) => imgproc::cvt_color_def(&m, out, imgproc::COLOR_YUV2BGR_NV12).map(|()| true),
                None => Ok(false),
            }
        }
        RawFormat::Gray => converted(1, imgproc::COLOR_GRAY2BGR, out),
        RawFormat::Rgb => converted(3, imgproc::COLOR_RGB2BGR, out),
        RawFormat::Bgr => match rows(bytes, 3, w, h)? {
            Some(m) => m.reshape(3, 0)?.copy_to(out).map(|()| true),
            None => Ok(false),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Vector, CV_8U, CV_8UC3};

    /// A BGR test picture: a gradient with coloured blocks, so that grey
    /// and colour both have something to compare.
    fn picture(w: i32, h: i32) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(h, w, CV_8UC3, opencv::core::Scalar::all(0.0)).expect("mat");
        for y in 0..h {
            for x in 0..w {
                let px = m.at_2d_mut::<opencv::core::Vec3b>(y, x).expect("px");
                *px = opencv::core::Vec3b::from([(x * 255 / w) as u8, (y * 255 / h) as u8, if (x / 16 + y / 16) % 2 == 0 { 200 } else { 40 }]);
            }
        }
        m
    }

    fn bgr_to_gray(m: &Mat) -> Mat {
        let mut g = Mat::default();
        imgproc::cvt_color_def(m, &mut g, imgproc::COLOR_BGR2GRAY).expect("gray");
        g
    }

    /// The largest difference of two 8-bit images of one size.
    fn max_diff(a: &Mat, b: &Mat) -> f64 {
        assert_eq!((a.cols(), a.rows(), a.channels()), (b.cols(), b.rows(), b.channels()));
        let mut d = Mat::default();
        opencv::core::absdiff(a, b, &mut d).expect("diff");
        let mut max = 0.0;
        opencv::core::min_max_loc(&d.reshape(1, 0).expect("flat"), None, Some(&mut max), None, None, &opencv::core::no_array()).expect("max");
        max
    }

    /// The colour picture `to_bgr` makes of a kept frame of `bytes` (it must make one).
    fn colour_of(format: RawFormat, bytes: &[u8], w: i32, h: i32) -> Mat {
        let mut raw = RawImage::default();
        raw.set(format, bytes, w, h);
        let mut out = Mat::default();
        assert!(to_bgr(&raw, &mut out).expect("bgr"), "{format:?}: a colour picture");
        out
    }

    fn yuyv_of(bgr: &Mat) -> Vec<u8> {
        // BT.601 studio range, as cameras send it (and OpenCV reads it).
        let mut out = Vec::new();
        for y in 0..bgr.rows() {
            for x in (0..bgr.cols()).step_by(2) {
                let yuv = |x: i32| {
                    let p = bgr.at_2d::<opencv::core::Vec3b>(y, x).expect("px");
                    let (b, g, r) = (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
                    let luma = 16.0 + 0.257 * r + 0.504 * g + 0.098 * b;
                    let u = 128.0 - 0.148 * r - 0.291 * g + 0.439 * b;
                    let v = 128.0 + 0.439 * r - 0.368 * g - 0.071 * b;
                    (luma, u, v)
                };
                let (y0, u0, v0) = yuv(x);
                let (y1, u1, v1) = yuv(x + 1);
                let b = |v: f64| v.round().clamp(0.0, 255.0) as u8;
                out.extend_from_slice(&[b(y0), b(f64::midpoint(u0, u1)), b(y1), b(f64::midpoint(v0, v1))]);
            }
        }
        out
    }

    #[test]
    fn an_mjpeg_frame_gives_the_grey_of_its_colour_decode() {
        let (w, h) = (64, 48);
        let mut jpeg = Vector::<u8>::new();
        imgcodecs::imencode_def(".jpg", &picture(w, h), &mut jpeg).expect("encode");
        let bytes = jpeg.to_vec();
        let mut gray = Mat::default();
        assert!(to_gray(RawFormat::Mjpeg, &bytes, w, h, &mut gray).expect("gray"));
        assert_eq!((gray.cols(), gray.rows(), gray.typ()), (w, h, CV_8U));
        // The luma decoded alone, against the colour decoded and converted
        // (the old path): equal on almost every pixel (mean difference
        // 0.017); a few differ where the colour decode clips a saturated
        // colour (6 at most here).
        let colour = imgcodecs::imdecode(&Mat::from_slice(&bytes).expect("buf"), imgcodecs::IMREAD_COLOR).expect("decode");
        let old = bgr_to_gray(&colour);
        let mut d = Mat::default();
        opencv::core::absdiff(&gray, &old, &mut d).expect("diff");
        assert!(opencv::core::mean_def(&d).expect("mean")[0] <= 0.1);
        assert!(max_diff(&gray, &old) <= 8.0);
        let bgr = colour_of(RawFormat::Mjpeg, &bytes, w, h);
        assert!(max_diff(&bgr, &colour) < 0.5);
        // A frame of another size, or a broken one, is refused.
        assert!(!to_gray(RawFormat::Mjpeg, &bytes, w * 2, h, &mut gray).expect("gray"));
        assert!(!to_gray(RawFormat::Mjpeg, &bytes[..bytes.len() / 3], w, h, &mut gray).expect("gray"));
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0; 100]);
        assert!(to_gray(RawFormat::Mjpeg, &padded, w, h, &mut gray).expect("gray"));
        assert!(!to_gray(RawFormat::Mjpeg, &[], w, h, &mut gray).expect("gray"));
    }

    #[test]
    fn the_preview_of_a_frame_that_came_as_grey_is_in_colour() {
        let (w, h) = (64, 48);
        let bgr = picture(w, h);
        let mut frame = crate::capture::Frame::empty();
        frame.raw.set(RawFormat::Yuyv, &yuyv_of(&bgr), w, h);
        assert!(to_gray(RawFormat::Yuyv, &frame.raw.bytes, w, h, &mut frame.gray).expect("gray"));
        let mut scratch = Mat::default();
        let shown = frame.picture(&mut scratch).expect("picture");
        assert_eq!((shown.cols(), shown.rows(), shown.channels()), (w, h, 3));
        assert!(max_diff(shown, &bgr) <= 40.0, "the camera's colours");
        // Without the camera's bytes, the grey in three channels.
        frame.raw.clear();
        let shown = frame.picture(&mut scratch).expect("picture");
        assert_eq!(shown.channels(), 3);
        // A frame with its colour shows it as it is.
        frame.color = bgr.clone();
        assert!(max_diff(frame.picture(&mut scratch).expect("picture"), &bgr) < 0.5);
    }

    #[test]
    fn a_yuyv_frame_gives_its_luma_and_its_colour() {
        let (w, h) = (64, 48);
        let bgr = picture(w, h);
        let bytes = yuyv_of(&bgr);
        let mut gray = Mat::default();
        assert!(to_gray(RawFormat::Yuyv, &bytes, w, h, &mut gray).expect("gray"));
        // Every other byte, as it is.
        for (i, v) in gray.data_bytes().expect("bytes").iter().enumerate() {
            assert_eq!(*v, bytes[2 * i]);
        }
        let colour = colour_of(RawFormat::Yuyv, &bytes, w, h);
        // Back to colour through 4:2:2 and studio range: close to the picture.
        assert!(max_diff(&colour, &bgr) <= 40.0, "{}", max_diff(&colour, &bgr));
        assert!(!to_gray(RawFormat::Yuyv, &bytes[..bytes.len() - 1], w, h, &mut gray).expect("gray"));
    }

    #[test]
    fn rgb_grey_and_nv12_frames_give_their_grey() {
        let (w, h) = (64, 48);
        let bgr = picture(w, h);
        let want = bgr_to_gray(&bgr);
        let mut rgb = Mat::default();
        imgproc::cvt_color_def(&bgr, &mut rgb, imgproc::COLOR_BGR2RGB).expect("rgb");
        let mut gray = Mat::default();
        assert!(to_gray(RawFormat::Rgb, rgb.data_bytes().expect("b"), w, h, &mut gray).expect("gray"));
        assert!(max_diff(&gray, &want) < 0.5);
        assert!(to_gray(RawFormat::Bgr, bgr.data_bytes().expect("b"), w, h, &mut gray).expect("gray"));
        assert!(max_diff(&gray, &want) < 0.5);
        let mut nv12 = want.data_bytes().expect("b").to_vec();
        nv12.resize(nv12.len() * 3 / 2, 128);
        assert!(to_gray(RawFormat::Nv12, &nv12, w, h, &mut gray).expect("gray"));
        assert!(max_diff(&gray, &want) < 0.5);
        let colour = colour_of(RawFormat::Nv12, &nv12, w, h);
        assert_eq!((colour.cols(), colour.rows(), colour.channels()), (w, h, 3));
    }
}
