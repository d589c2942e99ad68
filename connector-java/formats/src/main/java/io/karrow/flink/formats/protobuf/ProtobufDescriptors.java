package io.karrow.flink.formats.protobuf;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The message descriptor of a generated Protobuf class, and its serialized {@code FileDescriptorSet}
 * (the message's file and every file it imports, dependencies first): what native code decodes and
 * encodes with, so that the generated class is needed only while the job is planned.
 */
public final class ProtobufDescriptors {

    private ProtobufDescriptors() {}

    /**
     * The descriptor of the generated message class {@code className}, loaded with {@code loader},
     * failing as Flink's {@code protobuf} format does ("get &lt;class&gt; descriptors error!").
     */
    public static Descriptor descriptorOf(String className, ClassLoader loader) {
        try {
            Class<?> messageClass = Class.forName(className, true, loader);
            return (Descriptor) messageClass.getMethod("getDescriptor").invoke(null);
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new IllegalArgumentException("get " + className + " descriptors error!", e);
        }
    }

    /** The serialized {@code FileDescriptorSet} of {@code message}'s file and all its imports. */
    public static byte[] descriptorSet(Descriptor message) {
        Set<FileDescriptor> files = new LinkedHashSet<>();
        collect(message.getFile(), files);
        FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
        for (FileDescriptor file : files) {
            set.addFile(file.toProto());
        }
        return set.build().toByteArray();
    }

    private static void collect(FileDescriptor file, Set<FileDescriptor> files) {
        if (files.contains(file)) {
            return;
        }
        for (FileDescriptor dependency : file.getDependencies()) {
            collect(dependency, files);
        }
        files.add(file);
    }
}
