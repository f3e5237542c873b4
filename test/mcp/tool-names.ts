/** The tool names of the spec, exactly. */
export const TOOL_NAMES = [
  'crm.list_products',
  'crm.get_product',
  'crm.create_product',
  'crm.update_product',
  'crm.delete_product',
  'crm.list_product_categories',
  'crm.get_product_category',
  'crm.create_product_category',
  'crm.update_product_category',
  'crm.delete_product_category',
];
