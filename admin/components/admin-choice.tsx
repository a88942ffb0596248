import React from 'react';
import { BasePropertyComponent, useCurrentAdmin, type EditPropertyProps } from 'adminjs';

/**
 * A reference only an admin chooses, on a new record only: the account a new row goes to (and an API key's owner).
 * AdminJS's own searchable select (by the referenced record's title: the account's name), marked required. Sellers
 * and agents see nothing: their account comes from the server, which drops whatever they post.
 */
export default function AdminChoice(props: EditPropertyProps) {
  const [admin] = useCurrentAdmin();
  if (props.record?.id || (admin as { role?: string } | null)?.role !== 'admin') return null;
  const property = { ...props.property, isRequired: true, components: undefined };
  return <BasePropertyComponent {...props} property={property} />;
}
