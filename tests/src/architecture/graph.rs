//! The modules of one crate (a file each, found by following `mod name;`
//! from the crate's root) and which depends on which, with the circles
//! among them. A path depends on the module that defines what it names,
//! found as rust-analyzer finds it: through the imports and re-exports of
//! the modules it passes (`crate::Email` is `crate::profile::Email` when the
//! root has `pub use profile::Email`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use super::scan::{scan, FileScan, Import, PathUse};

/// Where the checker reads source files from.
pub trait Sources {
    /// The file's text, or `None` when there is no such file.
    fn read(&self, path: &Path) -> Option<String>;
}

/// One module: a file.
#[derive(Debug)]
pub struct Module {
    /// Its path below the crate root (empty for the root).
    pub path: Vec<String>,
    pub file: PathBuf,
    /// Declared under `#[cfg(test)]`: its uses of its ancestors are the
    /// allowed exception.
    pub test: bool,
}

/// Where a dependency is written: the first path that makes it.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub file: PathBuf,
    pub line: usize,
    pub path: String,
}

/// A crate's modules and their dependencies on each other.
#[derive(Debug)]
pub struct Graph {
    pub modules: Vec<Module>,
    /// `(from, to)` → the first place `from` names `to`.
    pub edges: BTreeMap<(usize, usize), Evidence>,
}

impl Graph {
    /// Reads the crate whose root file (`lib.rs`, `main.rs`, ...) is `root`,
    /// and every module file it declares; fails when a declared module has
    /// no file, so no module goes unread.
    pub fn load(root: &Path, sources: &dyn Sources) -> Result<Self, String> {
        let mut modules = Vec::new();
        let mut scans: Vec<FileScan> = Vec::new();
        let mut queue = VecDeque::from([(Vec::new(), root.to_path_buf(), false)]);
        while let Some((path, file, test)) = queue.pop_front() {
            let text = sources
                .read(&file)
                .ok_or_else(|| format!("cannot read {}", file.display()))?;
            let found = scan(&text);
            let folder = children_folder(&file, path.is_empty());
            for declaration in &found.declarations {
                let child_file = [
                    folder.join(format!("{}.rs", declaration.name)),
                    folder.join(&declaration.name).join("mod.rs"),
                ]
                .into_iter()
                .find(|candidate| sources.read(candidate).is_some())
                .ok_or_else(|| {
                    format!(
                        "{} declares `mod {};` but neither {0}/{1}.rs nor {0}/{1}/mod.rs is there",
                        file.display(),
                        declaration.name,
                    )
                })?;
                let mut child = path.clone();
                child.push(declaration.name.clone());
                queue.push_back((child, child_file, declaration.test));
            }
            modules.push(Module { path, file, test });
            scans.push(found);
        }
        let index: HashMap<Vec<String>, usize> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.clone(), i))
            .collect();
        let namespaces = modules
            .iter()
            .zip(&scans)
            .map(|(module, found)| Namespace::of(&module.path, found, &index))
            .collect();
        let names = Names { index, namespaces };
        let mut edges = BTreeMap::new();
        for (from, found) in scans.iter().enumerate() {
            let here = &modules[from];
            for used in &found.paths {
                let Some(target) = absolute(&here.path, used) else {
                    continue;
                };
                let to = match names.resolve(&target, 0) {
                    Named::Module(to) | Named::Item(to) | Named::Unsure(to) => to,
                    Named::Outside => continue,
                };
                let exempt = here.test && here.path.starts_with(&modules[to].path);
                if to != from && !exempt {
                    edges.entry((from, to)).or_insert_with(|| Evidence {
                        file: here.file.clone(),
                        line: used.line,
                        path: used.segments.join("::"),
                    });
                }
            }
        }
        Ok(Self { modules, edges })
    }

    /// The module's name as a path: `crate`, `crate::a::b`.
    pub fn name(&self, module: usize) -> String {
        let mut name = String::from("crate");
        for segment in &self.modules[module].path {
            name.push_str("::");
            name.push_str(segment);
        }
        name
    }

    /// Every circle, as the modules met going round it once (the first
    /// depends on the second, ..., the last on the first): for each
    /// dependency that lies on a circle, the shortest circle through it, so
    /// each dependency that closes a circle is named. Ordered shortest
    /// first; each starts at its module read first.
    pub fn circles(&self) -> Vec<Vec<usize>> {
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); self.modules.len()];
        for &(from, to) in self.edges.keys() {
            next[from].push(to);
        }
        let mut circles = BTreeSet::new();
        for &(from, to) in self.edges.keys() {
            if let Some(back) = shortest_path(&next, to, from) {
                let mut circle = vec![from];
                circle.extend(&back[..back.len() - 1]);
                let first = (0..circle.len()).min_by_key(|&i| circle[i]).unwrap_or(0);
                circle.rotate_left(first);
                circles.insert((circle.len(), circle));
            }
        }
        circles.into_iter().map(|(_, circle)| circle).collect()
    }
}

/// How many imports a path is followed through before its module is taken
/// as is: more than any real chain of re-exports, and an end to a loop of
/// globs.
const MAX_HOPS: usize = 16;

/// What a module's file makes nameable in it at its top level.
struct Namespace {
    /// The items it defines.
    defined: HashSet<String>,
    /// Each imported name and the path below the crate root it names;
    /// `None` when that is outside the crate.
    imported: HashMap<String, Option<Vec<String>>>,
    /// The paths below the crate root whose every name it imports.
    globs: Vec<Vec<String>>,
}

impl Namespace {
    fn of(here: &[String], found: &FileScan, index: &HashMap<Vec<String>, usize>) -> Self {
        let defined: HashSet<String> = found.definitions.iter().cloned().collect();
        // An import path starts at `crate`, `self`, `super`, or a name of the
        // module itself (a child, an inline module, an enum); any other first
        // name is another crate's.
        let within = |import: &Import| -> Option<Vec<String>> {
            let first = import.path.first()?;
            let local = matches!(first.as_str(), "crate" | "self" | "super")
                || defined.contains(first)
                || index.contains_key(&[here, std::slice::from_ref(first)].concat());
            if !local {
                return None;
            }
            let used = PathUse {
                segments: import.path.clone(),
                inline_depth: 0,
                line: 0,
            };
            absolute(here, &used)
        };
        let mut imported = HashMap::new();
        let mut globs = Vec::new();
        for import in &found.imports {
            match &import.name {
                Some(name) => {
                    imported.insert(name.clone(), within(import));
                }
                None => globs.extend(within(import)),
            }
        }
        Self {
            defined,
            imported,
            globs,
        }
    }
}

/// What a path below the crate root names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// The module itself.
    Module(usize),
    /// An item the module defines, or something inside one (a variant, an
    /// associated function).
    Item(usize),
    /// Something the module neither defines nor imports as far as the scan
    /// can tell (an item a macro writes, say): the module is taken as its
    /// owner.
    Unsure(usize),
    /// Something of another crate, imported.
    Outside,
}

/// The crate's modules with their namespaces, to resolve paths in.
struct Names {
    index: HashMap<Vec<String>, usize>,
    namespaces: Vec<Namespace>,
}

impl Names {
    /// What `path` names, after `hops` imports already followed to it.
    fn resolve(&self, path: &[String], hops: usize) -> Named {
        let (len, module) = (0..=path.len())
            .rev()
            .find_map(|len| self.index.get(&path[..len]).map(|&m| (len, m)))
            .unwrap_or((0, 0));
        match path[len..].split_first() {
            None => Named::Module(module),
            Some((name, rest)) => self.look_up(module, name, rest, hops),
        }
    }

    /// What `name::rest` names in `module`: the module's own item, or what
    /// an import or glob of it names; an import is no definition.
    fn look_up(&self, module: usize, name: &str, rest: &[String], hops: usize) -> Named {
        let namespace = &self.namespaces[module];
        if namespace.defined.contains(name) {
            return Named::Item(module);
        }
        if hops >= MAX_HOPS {
            return Named::Unsure(module);
        }
        if let Some(target) = namespace.imported.get(name) {
            return match target {
                Some(target) => self.resolve(&[target, rest].concat(), hops + 1),
                None => Named::Outside,
            };
        }
        for glob in &namespace.globs {
            if let Named::Module(source) = self.resolve(glob, hops + 1) {
                match self.look_up(source, name, rest, hops + 1) {
                    Named::Unsure(_) => {}
                    found => return found,
                }
            }
        }
        Named::Unsure(module)
    }
}

/// The folder in which the modules a file declares are: beside a crate
/// root or a `mod.rs`, in a folder named after any other file.
fn children_folder(file: &Path, root: bool) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if !root && stem != "mod" => parent.join(stem),
        _ => parent.to_path_buf(),
    }
}

/// The path below the crate root that `used`, written in the module at
/// `here`, names; `None` for a path that leaves the crate.
fn absolute(here: &[String], used: &PathUse) -> Option<Vec<String>> {
    let segments = &used.segments;
    let supers = segments.iter().take_while(|s| *s == "super").count();
    let (mut target, rest) = match segments.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &segments[1..]),
        // In an inline module, `self` and its first `super`s stay in this
        // file's module.
        Some("self") if used.inline_depth > 0 => return Some(here.to_vec()),
        Some("self") => (here.to_vec(), &segments[1..]),
        Some("super") if supers <= used.inline_depth => return Some(here.to_vec()),
        Some("super") => {
            let up = supers - used.inline_depth;
            let kept = here.len().checked_sub(up)?;
            (here[..kept].to_vec(), &segments[supers..])
        }
        Some(_) => (here.to_vec(), &segments[..]),
        None => return None,
    };
    for segment in rest {
        match segment.as_str() {
            "self" => {}
            "super" => {
                target.pop()?;
            }
            _ => target.push(segment.clone()),
        }
    }
    Some(target)
}

/// The modules from `start` to `goal` along dependencies, both included,
/// fewest first.
fn shortest_path(next: &[Vec<usize>], start: usize, goal: usize) -> Option<Vec<usize>> {
    let mut came_from = vec![None; next.len()];
    let mut queue = VecDeque::from([start]);
    let mut seen = vec![false; next.len()];
    seen[start] = true;
    while let Some(module) = queue.pop_front() {
        if module == goal {
            let mut path = vec![goal];
            let mut at = goal;
            while let Some(previous) = came_from[at] {
                path.push(previous);
                at = previous;
            }
            path.reverse();
            return Some(path);
        }
        for &to in &next[module] {
            if !seen[to] {
                seen[to] = true;
                came_from[to] = Some(module);
                queue.push_back(to);
            }
        }
    }
    None
}
