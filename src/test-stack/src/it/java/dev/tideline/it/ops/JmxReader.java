package dev.tideline.it.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** Reads MBean attributes of a worker JVM over remote JMX. */
public final class JmxReader implements AutoCloseable {
    private final JMXConnector connector;
    private final MBeanServerConnection server;

    public JmxReader(String serviceUrl) {
        try {
            this.connector = JMXConnectorFactory.connect(new JMXServiceURL(serviceUrl));
            this.server = connector.getMBeanServerConnection();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + serviceUrl, e);
        }
    }

    public static ObjectName name(String pattern) {
        try {
            return new ObjectName(pattern);
        } catch (JMException e) {
            throw new IllegalArgumentException(pattern, e);
        }
    }

    public Set<ObjectName> names(String pattern) {
        try {
            return server.queryNames(name(pattern), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The attribute, or null when the MBean is not (yet, or no longer) registered. */
    public Object attribute(String objectName, String attribute) {
        try {
            ObjectName n = name(objectName);
            return server.isRegistered(n) ? server.getAttribute(n, attribute) : null;
        } catch (javax.management.InstanceNotFoundException gone) {
            return null;
        } catch (JMException e) {
            throw new IllegalStateException("cannot read " + objectName + " " + attribute, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long longAttribute(String objectName, String attribute) {
        Object v = attribute(objectName, attribute);
        return v == null ? -1 : ((Number) v).longValue();
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            // the worker may be gone already: nothing to release on our side
        }
    }
}
