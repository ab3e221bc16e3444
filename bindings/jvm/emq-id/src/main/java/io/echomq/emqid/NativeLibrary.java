package io.echomq.emqid;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds and loads {@code libemqid_jni}: the jar carries one per platform under
 * {@code io/echomq/emqid/native/<platform>/}, listed in {@code native/platforms.txt}. The one
 * for this JVM's platform is copied to a private temporary directory, loaded, and the copy
 * deleted (the loaded library stays mapped). The system property {@code emqid.library} names a
 * library file to load instead (a build of your own).
 */
final class NativeLibrary {
    private NativeLibrary() {}

    private static final String FILE = "libemqid_jni.so";

    /** Loads the library, or throws {@link UnsatisfiedLinkError} naming the platform and the supported ones. */
    static void load() {
        String own = System.getProperty("emqid.library");
        if (own != null) {
            System.load(Path.of(own).toAbsolutePath().toString());
            return;
        }
        String platform = platform();
        try (InputStream library = open(platform)) {
            Path dir = Files.createTempDirectory("emq-id-");
            Path copy = dir.resolve(FILE);
            try {
                Files.copy(library, copy, StandardCopyOption.REPLACE_EXISTING);
                try {
                    System.load(copy.toAbsolutePath().toString());
                } catch (UnsatisfiedLinkError refused) {
                    // Most often a temporary directory mounted noexec: say where else to put it.
                    UnsatisfiedLinkError error = new UnsatisfiedLinkError("emq-id could not load its native library for "
                            + platform + " from " + copy + " (" + refused.getMessage() + "); if that directory does not"
                            + " allow executables, point -Djava.io.tmpdir elsewhere, or load a copy with -Demqid.library=PATH");
                    error.initCause(refused);
                    throw error;
                }
            } finally {
                Files.deleteIfExists(copy);
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("emq-id could not unpack its native library for "
                    + platform + ": " + e);
            error.initCause(e);
            throw error;
        }
    }

    /** The jar's library for {@code platform}, or {@link UnsatisfiedLinkError} naming it and the ones the jar carries. */
    static InputStream open(String platform) {
        InputStream library = NativeLibrary.class.getResourceAsStream("native/" + platform + "/" + FILE);
        if (library == null) {
            throw new UnsatisfiedLinkError("emq-id has no native library for this platform, " + platform
                    + " (os.name " + System.getProperty("os.name") + ", os.arch " + System.getProperty("os.arch")
                    + "); this jar carries: " + carried());
        }
        return library;
    }

    /** This JVM's platform as the jar names it: {@code linux-<arch>-<libc>}. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '_');
        String arch = switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> System.getProperty("os.arch", "unknown");
        };
        if (!os.equals("linux")) {
            return os + "-" + arch;
        }
        return "linux-" + arch + "-" + (musl() ? "musl" : "gnu");
    }

    /** Whether this process runs on musl: its loader is mapped into it. */
    private static boolean musl() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1)) {
                if (line.contains("/ld-musl-") || line.contains("/libc.musl-")) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            // No /proc: take glibc, and the load says so if that is wrong.
        }
        return false;
    }

    /** The platforms this jar carries, as its index lists them. */
    private static String carried() {
        try (InputStream index = NativeLibrary.class.getResourceAsStream("native/platforms.txt")) {
            if (index == null) {
                return "none (no native/platforms.txt in the jar)";
            }
            return String.join(", ", new String(index.readAllBytes(), StandardCharsets.UTF_8).strip().split("\\s+"));
        } catch (IOException e) {
            return "unknown (" + e + ")";
        }
    }
}
