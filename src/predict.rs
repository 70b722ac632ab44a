//! Word prediction for the on-screen keyboard: the words that complete what
//! the user has typed of a word, most likely first, from a shipped frequency
//! list (`assets/words/en.tsv`) and the user's own words, which it learns
//! (per profile, `words.txt`, saved atomically). It uses nothing else of
//! the crate but `fs` and `data_dir`.
//!
//! A word the user has typed before ranks above the shipped words it shares
//! a beginning with, the more often typed the higher: people reuse their
//! own vocabulary (names, places, their condition's terms) far more than a
//! general list predicts.
//!
//! Words are ranked by how likely they are after the previous word: the
//! shipped word pairs (`assets/words/en-pairs.tsv`, about 230 000, P(word |
//! previous) from SymSpell's counts of the Google Books n-grams)
//! interpolated with the word's own frequency, and above both the pairs
//! the user has typed (learned and saved with the words). Before the first letter of a word, it offers the likeliest next
//! words, so that a whole word can cost one selection; after a letter, the
//! likeliest words that begin so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Prediction failures.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    #[error("cannot read the word list {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: line {line} is not `word<TAB>number`")]
    Format { path: PathBuf, line: usize },
    #[error("cannot save the learned words to {path}: {source}")]
    Save { path: PathBuf, source: std::io::Error },
    #[error("{0}; the words learned now will not be saved")]
    Unusable(String),
    #[error("{path} could not be read ({why}) nor moved aside: {source}; the words learned now will not be saved")]
    NotMoved { path: PathBuf, why: String, source: std::io::Error },
}

/// The most the learned words file may hold (about 60 000 words), and the
/// most words kept: rewriting it after each word stays quick.
pub const WORDS_FILE_LIMIT: u64 = 1 << 20;
pub const MAX_USER_WORDS: usize = 50_000;

/// A word as the list and the learning keep it: lower-case letters, perhaps one apostrophe.
#[must_use]
pub fn is_word(w: &str) -> bool {
    !w.is_empty() && w.len() <= 40 && w.chars().all(|c| c.is_alphabetic() || c == '\'') && w.chars().next().is_some_and(char::is_alphabetic)
}

/// Word prediction: the shipped list and the user's words.
#[derive(Debug, Clone, Default)]
pub struct Predictor {
    /// Shipped words in alphabetical order, each with its frequency (0..1);
    /// shared by every predictor made from the same list.
    words: WordList,
    /// The most frequent shipped words, most frequent first.
    top: WordList,
    /// The user's words and how often each was typed.
    user: BTreeMap<String, u32>,
    /// The user's word pairs (a word, then the word after it) and how often.
    pairs: BTreeMap<(String, String), u32>,
    /// Shipped word pairs, each with P(second | first), in order.
    shipped_pairs: PairList,
}

/// The shipped word pairs, compact (there are about 230 000): the distinct
/// first words in alphabetical order, and for each pair its first word's
/// place among them, its second word's place in the word list, and
/// P(second | first), ordered by first word and then second.
#[derive(Debug, Clone, Default)]
struct PairList {
    firsts: Arc<[String]>,
    pairs: Arc<[(u32, u32, f32)]>,
}

impl PairList {
    #[cfg(test)]
    fn len(&self) -> usize {
        self.pairs.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pairs that begin with `first` (a word as [`letters`] gives it).
    fn after(&self, first: &str) -> &[(u32, u32, f32)] {
        let Ok(i) = self.firsts.binary_search_by(|w| w.as_str().cmp(first)) else { return &[] };
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        let start = self.pairs.partition_point(|p| p.0 < i);
        let len = self.pairs[start..].partition_point(|p| p.0 == i);
        &self.pairs[start..start + len]
    }
}

/// How much of a word's likelihood after a word is the shipped pairs'
/// P(word | previous); the rest is its own frequency (Jelinek–Mercer
/// interpolation, with the usual even share: not fitted to a phrase set).
const PAIR_SHARE: f64 = 0.5;

/// A word pair the user typed once counts like a certain next word (P = 1,
/// above any shipped pair's share): their own phrases come first.
const USER_PAIR_WEIGHT: f64 = 1.0;

/// The most word pairs kept (in `words.txt`, as `first second<TAB>count`).
pub const MAX_USER_PAIRS: usize = 50_000;

/// How many of the most frequent shipped words are kept ready for the next word.
const TOP_WORDS: usize = 64;

/// A user word typed once ranks like a shipped word used this often (one
/// word in 500: the ~200 most common words); each further use counts again.
const USER_WEIGHT: f64 = 2e-3;

/// A shipped list: its words in alphabetical order with their frequencies.
type WordList = Arc<[(String, f64)]>;

impl Predictor {
    /// The shipped list (`word<TAB>centibels` lines; `#` starts a comment).
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed (named).
    pub fn load(path: &Path) -> Result<Self, PredictError> {
        let text = std::fs::read_to_string(path).map_err(|source| PredictError::Read { path: path.to_path_buf(), source })?;
        let mut words = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (w, cb) = line.split_once('\t').ok_or_else(|| PredictError::Format { path: path.to_path_buf(), line: i + 1 })?;
            let cb: f64 = cb.trim().parse().map_err(|_| PredictError::Format { path: path.to_path_buf(), line: i + 1 })?;
            if is_word(w) {
                words.push((w.to_string(), 10f64.powf(cb / 100.0)));
            }
        }
        words.sort_by(|a, b| a.0.cmp(&b.0));
        words.dedup_by(|a, b| a.0 == b.0);
        let mut top = words.clone();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(TOP_WORDS);
        Ok(Self { words: words.into(), top: top.into(), ..Self::default() })
    }

    /// Adds shipped word pairs (`first second<TAB>centibels` lines, the
    /// centibels of P(second | first); `#` starts a comment). A pair that
    /// is not two words, or whose second word is not in the word list
    /// (it could never be offered), is skipped: load the words first.
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed (named).
    pub fn load_pairs(&mut self, path: &Path) -> Result<(), PredictError> {
        let text = std::fs::read_to_string(path).map_err(|source| PredictError::Read { path: path.to_path_buf(), source })?;
        let mut pairs: Vec<(std::borrow::Cow<'_, str>, u32, f32)> = Vec::new();
        // Each pair's second word looked up by hashing, not by a search of the sorted list.
        let places: std::collections::HashMap<&str, u32> = self.words.iter().enumerate().filter_map(|(i, (w, _))| Some((w.as_str(), u32::try_from(i).ok()?))).collect();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let bad = || PredictError::Format { path: path.to_path_buf(), line: i + 1 };
            let (pair, cb) = line.split_once('\t').ok_or_else(bad)?;
            let cb: f64 = cb.trim().parse().map_err(|_| bad())?;
            let Some((a, b)) = pair.split_once(' ').filter(|(a, b)| is_word(a) && is_word(b)) else { continue };
            let Some(&second) = places.get(lowered(b).as_ref()) else { continue };
            pairs.push((lowered(a), second, 10f64.powf(cb / 100.0).min(1.0) as f32));
        }
        pairs.sort_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
        pairs.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
        let mut firsts: Vec<String> = Vec::new();
        let mut packed = Vec::with_capacity(pairs.len());
        for (a, b, p) in &pairs {
            if firsts.last().is_none_or(|f| f != a) {
                firsts.push(a.to_string());
            }
            packed.push((u32::try_from(firsts.len() - 1).unwrap_or(u32::MAX), *b, *p));
        }
        self.shipped_pairs = PairList { firsts: firsts.into(), pairs: packed.into() };
        Ok(())
    }

    /// A shipped word's place in the word list.
    fn word_index(&self, word: &str) -> Option<u32> {
        self.words.binary_search_by(|(w, _)| w.as_str().cmp(word)).ok().and_then(|i| u32::try_from(i).ok())
    }

    /// The shipped words and word pairs of this installation
    /// (`assets/words/en.tsv`, `en-pairs.tsv`), read once per process
    /// (every menu panel starts from them); a word list that cannot be read
    /// is tried again next time, and pairs that cannot be read are logged
    /// and done without.
    ///
    /// # Errors
    /// See [`Predictor::load`].
    pub fn shipped() -> Result<Self, PredictError> {
        static SHIPPED: Mutex<Option<(PathBuf, Predictor)>> = Mutex::new(None);
        let dir = crate::data_dir().join("assets").join("words");
        let mut kept = SHIPPED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((d, p)) = kept.as_ref()
            && *d == dir
        {
            return Ok(p.clone());
        }
        let loaded = Self::from_dir(&dir)?;
        *kept = Some((dir, loaded.clone()));
        Ok(loaded)
    }

    /// The words (`en.tsv`) and word pairs (`en-pairs.tsv`) of `dir`; pairs
    /// that cannot be read are logged, and the words still come, by their
    /// own frequency.
    fn from_dir(dir: &Path) -> Result<Self, PredictError> {
        let mut loaded = Self::load(&dir.join("en.tsv"))?;
        if let Err(e) = loaded.load_pairs(&dir.join("en-pairs.tsv")) {
            tracing::warn!("{e}; the words offered are not ranked by the word before them");
        }
        Ok(loaded)
    }

    /// Adds the user's words from `words.txt` (`word<TAB>count`); a missing
    /// file is no words yet, and a line that is not a word and a count is
    /// skipped. A file that is not UTF-8 text or is larger than
    /// [`WORDS_FILE_LIMIT`] is moved aside to `words.txt.bak` (never written
    /// over) and learning starts again: the returned note says so.
    ///
    /// # Errors
    /// The file exists but cannot be read, is not a regular file, or could
    /// not be moved aside: the words learned from now on must then not be
    /// saved over it.
    pub fn load_user(&mut self, path: &Path) -> Result<Option<String>, PredictError> {
        let why = match crate::fs::read_regular(path, WORDS_FILE_LIMIT) {
            Ok(None) => return Ok(None),
            Ok(Some(bytes)) => match String::from_utf8(bytes) {
                Ok(text) => {
                    self.add_user_text(&text);
                    return Ok(None);
                }
                Err(e) => format!("not UTF-8 text (byte {} is not valid UTF-8)", e.utf8_error().valid_up_to() + 1),
            },
            Err(e @ crate::fs::ReadError::TooLarge { .. }) => e.to_string(),
            Err(crate::fs::ReadError::Io { path, source }) => return Err(PredictError::Read { path, source }),
            Err(e) => return Err(PredictError::Unusable(e.to_string())),
        };
        let bak = crate::fs::backup_path(path);
        match std::fs::rename(path, &bak) {
            Ok(()) => Ok(Some(format!("{}: {why}; kept as {} and learning your words again", path.display(), bak.display()))),
            Err(source) => Err(PredictError::NotMoved { path: path.to_path_buf(), why, source }),
        }
    }

    fn add_user_text(&mut self, text: &str) {
        for line in text.lines() {
            let Some((w, n)) = line.split_once('\t') else { continue };
            let Ok(n) = n.trim().parse::<u32>() else { continue };
            if is_word(w) {
                add(&mut self.user, w.to_lowercase(), n);
            } else if let Some((a, b)) = w.split_once(' ')
                && is_word(a)
                && is_word(b)
            {
                add(&mut self.pairs, (a.to_lowercase(), b.to_lowercase()), n);
            }
        }
        self.trim_user();
    }

    /// Keeps the [`MAX_USER_WORDS`] most typed words (the first in
    /// alphabetical order among equals).
    fn trim_user(&mut self) {
        trim_counts(&mut self.user, MAX_USER_WORDS);
        trim_counts(&mut self.pairs, MAX_USER_PAIRS);
    }

    /// Saves the user's words atomically (the old file or the whole new one).
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn save_user(&self, path: &Path) -> Result<(), PredictError> {
        use std::fmt::Write;
        let mut text = String::from("# Words this user typed, and how often (Facemouse's word prediction learns them)\n");
        for (w, n) in &self.user {
            let _ = writeln!(text, "{w}\t{n}");
        }
        for ((a, b), n) in &self.pairs {
            let _ = writeln!(text, "{a} {b}\t{n}");
        }
        crate::fs::write_atomic(path, text.as_bytes()).map_err(|source| PredictError::Save { path: path.to_path_buf(), source })
    }

    /// Learns a word the user finished typing (letters only count).
    pub fn learn(&mut self, word: &str) {
        let w = letters(word);
        if is_word(&w) {
            add(&mut self.user, w, 1);
            self.trim_user();
        }
    }

    /// Learns that the user typed `word` after `previous` (letters only count).
    pub fn learn_pair(&mut self, previous: &str, word: &str) {
        let (a, b) = (letters(previous), letters(word));
        if is_word(&a) && is_word(&b) {
            add(&mut self.pairs, (a, b), 1);
            self.trim_user();
        }
    }

    /// How often the user typed `word` after `previous`.
    #[must_use]
    pub fn learned_pair(&self, previous: &str, word: &str) -> u32 {
        self.pairs.get(&(previous.to_lowercase(), word.to_lowercase())).copied().unwrap_or(0)
    }

    /// Up to `n` words to offer before the first letter of the word after
    /// `previous` (empty at the start), likeliest first (see [`Predictor::suggest_after`]):
    /// those the user has typed after it, the shipped pairs' likely next
    /// words, and the most frequent words.
    #[must_use]
    pub fn suggest_next(&self, previous: &str, n: usize) -> Vec<String> {
        let after = self.after(previous);
        let mut candidates: BTreeMap<&str, f64> = self.top.iter().map(|(w, f)| (w.as_str(), *f)).collect();
        let mut own: Vec<(&str, u32)> = self.user.iter().map(|(w, c)| (w.as_str(), *c)).collect();
        own.sort_by_key(|w| std::cmp::Reverse(w.1));
        for (w, _) in own.into_iter().take(n) {
            candidates.entry(w).or_insert(0.0);
        }
        for w in after.user.keys() {
            candidates.entry(w).or_insert(0.0);
        }
        self.best(&after, &candidates, after.shipped, n, false)
    }

    /// Up to `n` words that begin with `prefix` (case ignored), never
    /// `prefix` itself, likeliest first after `previous` (empty: none).
    /// How likely a word is: the shipped pairs' P(word | previous) and the
    /// word's own frequency, half each ([`PAIR_SHARE`]), the user's own words
    /// counting as frequent ones, and above all the pairs the user typed.
    /// Written as the user began them: a capital first letter stays, and "i" is "I".
    #[must_use]
    pub fn suggest_after(&self, previous: &str, prefix: &str, n: usize) -> Vec<String> {
        let p = prefix.to_lowercase();
        if p.is_empty() || n == 0 {
            return Vec::new();
        }
        let start = self.words.partition_point(|(w, _)| w.as_str() < p.as_str());
        let mut candidates: BTreeMap<&str, f64> = BTreeMap::new();
        for (w, f) in self.words[start..].iter().take_while(|(w, _)| w.starts_with(&p)) {
            candidates.insert(w, *f);
        }
        for (w, _) in self.user.range(p.clone()..).take_while(|(w, _)| w.starts_with(&p)) {
            candidates.entry(w).or_insert(0.0);
        }
        candidates.remove(p.as_str());
        let capital = prefix.chars().next().is_some_and(char::is_uppercase);
        self.best(&self.after(previous), &candidates, &[], n, capital)
    }

    /// [`Predictor::suggest_after`] with no previous word.
    #[must_use]
    pub fn suggest(&self, prefix: &str, n: usize) -> Vec<String> {
        self.suggest_after("", prefix, n)
    }

    /// What is known of the words after `previous`.
    fn after(&self, previous: &str) -> After<'_> {
        let prev = letters(previous);
        if !is_word(&prev) {
            return After { shipped: &[], user: BTreeMap::new() };
        }
        let user = self.pairs.range((prev.clone(), String::new())..).take_while(|((a, _), _)| *a == prev).map(|((_, b), c)| (b.as_str(), *c)).collect();
        After { shipped: self.shipped_pairs.after(&prev), user }
    }

    /// The `n` likeliest of `candidates` (each with its shipped frequency)
    /// and of the second words of the shipped `pairs` (there may be
    /// thousands; each holds its word's place and P(word | previous), so
    /// nothing is looked up for them) after `after`'s word.
    fn best(&self, after: &After<'_>, candidates: &BTreeMap<&str, f64>, pairs: &[(u32, u32, f32)], n: usize, capital: bool) -> Vec<String> {
        if n == 0 {
            return Vec::new();
        }
        let score = |w: &str, f: f64, shipped: f64| {
            let own = f + USER_WEIGHT * f64::from(self.user.get(w).copied().unwrap_or(0));
            let user_pair = f64::from(after.user.get(w).copied().unwrap_or(0));
            (1.0 - PAIR_SHARE) * own + PAIR_SHARE * shipped + USER_PAIR_WEIGHT * user_pair
        };
        let mut scored: Vec<(&str, f64)> = candidates.iter().map(|(&w, &f)| (w, score(w, f, self.word_index(w).map_or(0.0, |i| after.shipped_p(i))))).collect();
        for &(_, i, p) in pairs {
            if let Some((w, f)) = self.words.get(i as usize)
                && !candidates.contains_key(w.as_str())
            {
                scored.push((w, score(w, *f, f64::from(p))));
            }
        }
        let order = |a: &(&str, f64), b: &(&str, f64)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0));
        if scored.len() > n {
            scored.select_nth_unstable_by(n - 1, order);
            scored.truncate(n);
        }
        scored.sort_by(order);
        scored.into_iter().map(|(w, _)| shown(w, capital)).collect()
    }

    /// How often the user typed `word`.
    #[must_use]
    pub fn learned(&self, word: &str) -> u32 {
        self.user.get(&word.to_lowercase()).copied().unwrap_or(0)
    }
}

/// `word` in lower case, copied only when it has a capital (most do not).
fn lowered(word: &str) -> std::borrow::Cow<'_, str> {
    if word.chars().any(char::is_uppercase) { std::borrow::Cow::Owned(word.to_lowercase()) } else { std::borrow::Cow::Borrowed(word) }
}

/// The words known to follow one word: the shipped pairs that begin with
/// it (ordered by their second word's place in the word list) and the user's.
struct After<'a> {
    shipped: &'a [(u32, u32, f32)],
    user: BTreeMap<&'a str, u32>,
}

impl After<'_> {
    /// The shipped P(word | the previous word) of the listed word at `word` (0 when no pair).
    fn shipped_p(&self, word: u32) -> f64 {
        self.shipped.binary_search_by(|p| p.1.cmp(&word)).map_or(0.0, |i| f64::from(self.shipped[i].2))
    }
}

/// A typed word as it is counted: lower case, without the signs around it.
fn letters(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase()
}

/// Counts `key` `n` times more.
fn add<K: Ord>(counts: &mut BTreeMap<K, u32>, key: K, n: u32) {
    let c = counts.entry(key).or_insert(0);
    *c = c.saturating_add(n);
}

/// Keeps the `max` highest counts (the first in order among equals).
fn trim_counts<K: Ord>(counts: &mut BTreeMap<K, u32>, max: usize) {
    if counts.len() <= max || max == 0 {
        return;
    }
    let mut all: Vec<u32> = counts.values().copied().collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    let floor = all[max - 1];
    let mut at_floor = max - all.iter().take_while(|c| **c > floor).count();
    counts.retain(|_, c| {
        if *c > floor {
            true
        } else if *c == floor && at_floor > 0 {
            at_floor -= 1;
            true
        } else {
            false
        }
    });
}

/// The word before the one being typed in `typed` (empty when there is
/// none, or when a sentence or a line ended in between).
#[must_use]
pub fn previous_word(typed: &str) -> &str {
    let before = &typed[..typed.len() - current_word(typed).len()];
    let trimmed = before.trim_end_matches(' ');
    if trimmed.len() == before.len() && !before.is_empty() {
        // Something other than a space right before the word (a comma, a full stop).
        return "";
    }
    current_word(trimmed)
}

/// A word as it is typed: "I" and its contractions capitalized, and a capital first letter kept.
fn shown(w: &str, capital: bool) -> String {
    let mut chars = w.chars();
    match chars.next() {
        Some(first) if capital || w == "i" || w.starts_with("i'") => first.to_uppercase().chain(chars).collect(),
        _ => w.to_string(),
    }
}

/// What the user is typing now: the letters at the end of `typed` (empty after a space).
#[must_use]
pub fn current_word(typed: &str) -> &str {
    let start = typed.rfind(|c: char| !(c.is_alphabetic() || c == '\'')).map_or(0, |i| i + typed[i..].chars().next().map_or(1, char::len_utf8));
    &typed[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(dir: &Path) -> Predictor {
        let p = dir.join("en.tsv");
        std::fs::write(&p, "# test\nthe\t-127\nthey\t-260\nthere\t-250\nthen\t-270\nhello\t-400\nhelp\t-350\ni\t-191\ni'm\t-280\n").expect("write");
        Predictor::load(&p).expect("load")
    }

    #[test]
    fn the_likeliest_completions_come_first_and_the_prefix_itself_never() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = list(dir.path());
        assert_eq!(p.suggest("th", 3), vec!["the", "there", "they"]);
        assert_eq!(p.suggest("the", 5), vec!["there", "they", "then"], "not 'the' itself");
        assert_eq!(p.suggest("He", 2), vec!["Help", "Hello"], "a capital stays");
        assert_eq!(p.suggest("i", 2), vec!["I'm"], "I is a capital");
        assert!(p.suggest("", 3).is_empty() && p.suggest("xyz", 3).is_empty());
    }

    #[test]
    fn the_users_own_words_rise_and_are_saved_atomically() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = list(dir.path());
        assert_eq!(p.suggest("he", 1), vec!["help"]);
        p.learn("Hello,");
        p.learn("hello");
        assert_eq!(p.learned("hello"), 2);
        assert_eq!(p.suggest("he", 1), vec!["hello"], "twice typed beats the list");
        p.learn("Helsinki");
        assert!(p.suggest("hel", 3).contains(&"helsinki".to_string()), "a new word is learned");
        let words = dir.path().join("words.txt");
        p.save_user(&words).expect("save");
        let mut again = list(dir.path());
        again.load_user(&words).expect("load");
        assert_eq!((again.learned("hello"), again.learned("helsinki")), (2, 1));
        // Nothing of a broken line is taken, and a missing file is no words.
        std::fs::write(&words, "hello\t3\n\u{0}\tx\n1234\t5\n").expect("write");
        let mut third = list(dir.path());
        third.load_user(&words).expect("load");
        assert_eq!(third.learned("hello"), 3);
        third.load_user(&dir.path().join("none.txt")).expect("missing is fine");
    }

    /// Before a word's first letter: the words the user typed after the
    /// previous one, most often first, then the most frequent words; the
    /// pairs are saved with the words and read back.
    #[test]
    fn the_next_word_comes_from_the_users_pairs_then_the_commonest_words() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = list(dir.path());
        assert_eq!(p.suggest_next("", 3), vec!["the", "I", "there"], "the commonest words at the start");
        assert_eq!(p.suggest_next("hello", 2), vec!["the", "I"], "no pair learned yet");
        p.learn_pair("hello", "there");
        p.learn_pair("Hello,", "Helsinki");
        p.learn_pair("hello", "helsinki");
        assert_eq!(p.learned_pair("hello", "helsinki"), 2);
        assert_eq!(p.suggest_next("hello", 3), vec!["helsinki", "there", "the"], "pairs first, most typed first, then the list");
        assert_eq!(p.suggest_next("HELLO", 1), vec!["helsinki"], "case ignored");
        p.learn_pair("", "x");
        p.learn_pair("hello", "12");
        assert_eq!(p.pairs.len(), 2, "only words make pairs");
        let words = dir.path().join("words.txt");
        p.learn("hello");
        p.save_user(&words).expect("save");
        let text = std::fs::read_to_string(&words).expect("saved");
        assert!(text.contains("hello helsinki\t2\n") && text.contains("hello\t1\n"), "{text}");
        let mut again = list(dir.path());
        again.load_user(&words).expect("load");
        assert_eq!((again.learned_pair("hello", "helsinki"), again.learned_pair("hello", "there"), again.learned("hello")), (2, 1, 1));
    }

    /// The shipped pairs rank a word by how likely it is after the previous
    /// one, over its own frequency; a pair the user typed ranks above them.
    #[test]
    fn the_likeliest_word_after_the_previous_one_comes_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("w.tsv"), "yes\t-150\nyou\t-200\nyour\t-260\nthank\t-330\n").expect("write");
        let mut w = Predictor::load(&dir.path().join("w.tsv")).expect("load");
        let pairs = dir.path().join("pairs.tsv");
        std::fs::write(&pairs, "# test\nthank you\t-16\nthank yes\t-250\nbad-word x\t-10\n").expect("write");
        w.load_pairs(&pairs).expect("pairs");
        assert_eq!(w.shipped_pairs.len(), 2, "a pair that is not two words is skipped");
        assert_eq!(w.suggest("y", 3), vec!["yes", "you", "your"], "alone: by frequency");
        assert_eq!(w.suggest_after("thank", "y", 3), vec!["you", "yes", "your"], "after thank: by the pair");
        assert_eq!(w.suggest_after("Thank,", "Y", 1), vec!["You"], "the previous word's case and signs do not matter; a capital stays");
        assert_eq!(w.suggest_next("thank", 2), vec!["you", "yes"], "before the first letter too");
        assert_eq!(w.suggest_next("", 1), vec!["yes"], "no previous word: by frequency");
        w.learn_pair("thank", "your");
        assert_eq!(w.suggest_next("thank", 3), vec!["your", "you", "yes"], "the user's own pair first");
        std::fs::write(&pairs, "thank you\n").expect("write");
        let e = w.load_pairs(&pairs).expect_err("malformed").to_string();
        assert!(e.contains("pairs.tsv") && e.contains("line 1"), "{e}");
    }

    /// The pairs are kept by their words' places: in any order in the file,
    /// a first word in capitals is the same word, and a pair whose second
    /// word is not listed (it could never be offered) is left out.
    #[test]
    fn pairs_in_any_order_are_found_by_their_first_word() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut w = list(dir.path());
        let pairs = dir.path().join("pairs.tsv");
        std::fs::write(&pairs, "hello there\t-30\nhelp zebra\t-1\nHelp then\t-20\nhelp they\t-40\nzzz then\t-10\nhello there\t-90\n").expect("write");
        w.load_pairs(&pairs).expect("pairs");
        assert_eq!(w.shipped_pairs.len(), 4, "zebra is not listed; the same pair twice counts once");
        assert_eq!(w.suggest_next("help", 2), vec!["then", "they"]);
        assert_eq!(w.suggest_after("HELLO", "th", 1), vec!["there"]);
        assert_eq!(w.suggest_after("zzz", "th", 1), vec!["then"], "a first word need not be listed");
        assert!(w.shipped_pairs.after("hel").is_empty() && w.shipped_pairs.after("helpx").is_empty());
    }

    #[test]
    fn without_the_pairs_file_the_words_still_come() {
        let dir = tempfile::tempdir().expect("tempdir");
        let _ = list(dir.path());
        let p = Predictor::from_dir(dir.path()).expect("the words alone");
        assert!(p.shipped_pairs.is_empty());
        assert_eq!(p.suggest_after("thank", "th", 2), vec!["the", "there"], "by frequency");
        std::fs::write(dir.path().join("en-pairs.tsv"), "thank there\t-10\n").expect("write");
        let q = Predictor::from_dir(dir.path()).expect("with pairs");
        assert_eq!(q.suggest_after("thank", "th", 2), vec!["there", "the"], "ranked by the pair");
    }

    #[test]
    fn the_previous_word_is_the_one_before_the_space() {
        assert_eq!(previous_word("hello wor"), "hello");
        assert_eq!(previous_word("hello "), "hello");
        assert_eq!(previous_word("say hello  "), "hello");
        assert_eq!(previous_word("hello"), "");
        assert_eq!(previous_word("end. new"), "", "a sentence ended between");
        assert_eq!(previous_word("one, two"), "", "a comma between");
        assert_eq!(previous_word(""), "");
    }

    #[test]
    fn the_word_being_typed_is_the_letters_at_the_end() {
        assert_eq!(current_word("hello wor"), "wor");
        assert_eq!(current_word("hello "), "");
        assert_eq!(current_word("don't"), "don't");
        assert_eq!(current_word("café"), "café");
        assert_eq!(current_word(""), "");
    }

    #[test]
    fn the_shipped_list_loads_and_knows_common_words() {
        let p = Predictor::shipped().expect("the shipped word list");
        assert!(p.words.len() > 10_000);
        assert_eq!(p.suggest("th", 1), vec!["the"]);
        assert!(p.suggest("beca", 3).contains(&"because".to_string()));
        assert!(p.shipped_pairs.len() > 5000, "the shipped word pairs");
        assert_eq!(p.suggest_next("thank", 1), vec!["you"]);
        assert_eq!(p.suggest_after("according", "t", 1), vec!["to"]);
        assert_eq!(p.suggest_next("according", 1), vec!["to"]);
        let dir = tempfile::tempdir().expect("tempdir");
        let bad = dir.path().join("bad.tsv");
        std::fs::write(&bad, "word\n").expect("write");
        let e = Predictor::load(&bad).expect_err("malformed").to_string();
        assert!(e.contains("bad.tsv") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn a_words_file_that_is_not_utf8_or_too_large_is_kept_as_bak_and_learning_starts_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let words = dir.path().join("words.txt");
        // Latin-1: "café<TAB>3" with é as one byte.
        let latin1 = b"hello\t4\ncaf\xe9\t3\n".to_vec();
        std::fs::write(&words, &latin1).expect("write");
        let mut p = list(dir.path());
        let note = p.load_user(&words).expect("recovered").expect("a note");
        assert!(note.contains("words.txt") && note.contains("not UTF-8") && note.contains("words.txt.bak"), "{note}");
        assert_eq!(std::fs::read(dir.path().join("words.txt.bak")).expect("kept"), latin1);
        assert!(!words.exists());
        p.learn("hello");
        p.save_user(&words).expect("save");
        assert_eq!(std::fs::read(dir.path().join("words.txt.bak")).expect("still kept"), latin1, "the backup is never written over");
        // Larger than the limit: kept aside, whole, and not read.
        let big = vec![b'a'; usize::try_from(WORDS_FILE_LIMIT).expect("size") + 1];
        std::fs::write(&words, &big).expect("write");
        let note = list(dir.path()).load_user(&words).expect("recovered").expect("a note");
        assert!(note.contains("bytes") && note.contains("words.txt.bak.2"), "{note}");
        assert_eq!(std::fs::metadata(dir.path().join("words.txt.bak.2")).expect("kept").len(), big.len() as u64);
    }

    #[cfg(unix)]
    #[test]
    fn a_words_file_that_is_not_a_file_is_an_error_and_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let words = dir.path().join("words.txt");
        std::fs::create_dir(&words).expect("mkdir");
        let e = list(dir.path()).load_user(&words).expect_err("a folder");
        assert!(e.to_string().contains("a folder") && e.to_string().contains("not be saved"), "{e}");
        assert!(words.is_dir());
    }

    #[test]
    fn the_learned_words_are_bounded_keeping_the_most_typed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = list(dir.path());
        p.learn("zebra");
        p.learn("zebra");
        let mut text = String::new();
        for i in 0..MAX_USER_WORDS {
            let w: String = format!("{i:05}").chars().map(|c| char::from(b'a' + (c as u8 - b'0'))).collect();
            text.push('w');
            text.push_str(&w);
            text.push_str("\t1\n");
        }
        let words = dir.path().join("words.txt");
        std::fs::write(&words, text).expect("write");
        p.load_user(&words).expect("load");
        assert_eq!(p.user.len(), MAX_USER_WORDS);
        assert_eq!(p.learned("zebra"), 2, "the most typed word stays");
        p.save_user(&words).expect("save");
        assert!(std::fs::metadata(&words).expect("saved").len() < WORDS_FILE_LIMIT, "what is saved can be read back");
    }
}
