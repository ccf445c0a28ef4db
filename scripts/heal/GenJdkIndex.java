import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Prints the public top-level classes of the JDK's java.* modules by
 * simple name: "SimpleName package1 package2 ...", one line per name,
 * sorted. Run with the JDK whose classes salve should know:
 * java scripts/heal/GenJdkIndex.java > heal/rules/data/jdk_classes.txt
 */
public class GenJdkIndex {
    public static void main(String[] args) throws Exception {
        FileSystem fs = FileSystems.getFileSystem(URI.create("jrt:/"));
        Map<String, TreeSet<String>> index = new TreeMap<>();
        for (ModuleReference m : ModuleFinder.ofSystem().findAll()) {
            ModuleDescriptor d = m.descriptor();
            if (!d.name().startsWith("java.")) {
                continue;
            }
            for (ModuleDescriptor.Exports e : d.exports()) {
                if (e.isQualified()) {
                    continue;
                }
                String pkg = e.source();
                Path dir = fs.getPath("/modules", d.name(), pkg.replace('.', '/'));
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.class")) {
                    for (Path p : ds) {
                        String n = p.getFileName().toString();
                        n = n.substring(0, n.length() - ".class".length());
                        if (n.contains("$") || n.equals("package-info") || n.equals("module-info")) {
                            continue;
                        }
                        Class<?> c;
                        try {
                            c = Class.forName(pkg + "." + n, false, ClassLoader.getPlatformClassLoader());
                        } catch (Throwable t) {
                            continue;
                        }
                        if (Modifier.isPublic(c.getModifiers())) {
                            index.computeIfAbsent(n, k -> new TreeSet<>()).add(pkg);
                        }
                    }
                } catch (NoSuchFileException ex) {
                    // an exported package without classes of its own
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, TreeSet<String>> e : index.entrySet()) {
            out.append(e.getKey()).append(' ').append(String.join(" ", e.getValue())).append('\n');
        }
        System.out.print(out);
    }
}
