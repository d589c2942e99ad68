//! The generated Java class stock Flink's `protobuf` format needs (`protobuf.message-class-name`
//! names a class protoc generated), made at bench time: the message's descriptor set through
//! `protoc --descriptor_set_in ... --java_out` and `javac`, against the protobuf-java of the
//! JVM harness's classpath. The protoc is the one of that protobuf-java version the build
//! itself uses (`com.google.protobuf:protoc:<version>:exe:linux-x86_64` in the Maven
//! repository holding the jar), or `--protoc`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::stock::Jvm;

/// The protobuf-java jar of `classpath` and its version.
fn protobuf_java(classpath: &str) -> Option<(PathBuf, String)> {
    classpath.split(':').find_map(|entry| {
        let path = Path::new(entry);
        let name = path.file_name()?.to_str()?;
        let version = name.strip_prefix("protobuf-java-")?.strip_suffix(".jar")?;
        // Not protobuf-java-util-...: a version starts with a digit.
        version
            .starts_with(|c: char| c.is_ascii_digit())
            .then(|| (path.to_path_buf(), version.to_string()))
    })
}

/// The protoc of `version` next to the protobuf-java jar in its Maven repository
/// (`<repo>/com/google/protobuf/protobuf-java/<v>/protobuf-java-<v>.jar` ->
/// `<repo>/com/google/protobuf/protoc/<v>/protoc-<v>-linux-x86_64.exe`).
fn maven_protoc(jar: &Path, version: &str) -> Option<PathBuf> {
    let group = jar.parent()?.parent()?.parent()?;
    let exe = group
        .join("protoc")
        .join(version)
        .join(format!("protoc-{version}-linux-x86_64.exe"));
    exe.is_file().then_some(exe)
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not start {what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr);
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output");
    Err(format!("{what} failed ({}): {first}", out.status))
}

fn java_sources(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            java_sources(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    Ok(())
}

/// Generates and compiles the Java classes of `files` (names inside the serialized
/// descriptor set `set`) into `work/classes`; returns that directory. `protoc` overrides the
/// one found next to the harness's protobuf-java.
pub fn compile_classes(
    jvm: &Jvm,
    protoc: Option<&Path>,
    set: &[u8],
    files: &[String],
    work: &Path,
) -> Result<PathBuf, String> {
    let (jar, version) = protobuf_java(&jvm.classpath)
        .ok_or("the JVM harness's classpath has no protobuf-java jar")?;
    let protoc = match protoc {
        Some(p) => p.to_path_buf(),
        None => {
            let found = maven_protoc(&jar, &version).ok_or_else(|| {
                format!(
                    "no protoc {version} next to {} (the build's protoc; pass --protoc)",
                    jar.display()
                )
            })?;
            // Maven keeps it without the execute bit: run a copy.
            let copy = work.join("protoc");
            std::fs::copy(&found, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| format!("{}: {e}", copy.display()))?;
            }
            copy
        }
    };
    let set_file = work.join("message.desc");
    let (java_out, classes) = (work.join("java"), work.join("classes"));
    for dir in [&java_out, &classes] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&set_file, set).map_err(|e| format!("{}: {e}", set_file.display()))?;
    run(
        Command::new(&protoc)
            .arg(format!("--descriptor_set_in={}", set_file.display()))
            .arg(format!("--java_out={}", java_out.display()))
            .args(files),
        "protoc",
    )?;
    let mut sources = Vec::new();
    java_sources(&java_out, &mut sources).map_err(|e| format!("{}: {e}", java_out.display()))?;
    // javac next to java (a JDK), else on PATH.
    let javac = jvm
        .java
        .parent()
        .map(|d| d.join("javac"))
        .filter(|j| j.is_file())
        .unwrap_or_else(|| PathBuf::from("javac"));
    run(
        Command::new(&javac)
            .args(["-nowarn", "-encoding", "UTF-8", "--release", "17", "-cp"])
            .arg(&jar)
            .arg("-d")
            .arg(&classes)
            .args(&sources),
        "javac",
    )?;
    Ok(classes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_protobuf_java_and_not_its_util_jar() {
        let cp = "/r/com/google/protobuf/protobuf-java-util/4.32.1/protobuf-java-util-4.32.1.jar:\
                  /r/com/google/protobuf/protobuf-java/4.32.1/protobuf-java-4.32.1.jar";
        let (jar, v) = protobuf_java(cp).unwrap();
        assert_eq!(v, "4.32.1");
        assert!(jar.ends_with("protobuf-java/4.32.1/protobuf-java-4.32.1.jar"));
        assert!(protobuf_java("/a/b.jar:/c").is_none());
    }
}
