/** A dashboard file using values: named after its environment, its markdown from `values.note`, its height as given. */
export function hostsTemplate(height = '152'): string {
  return `dashboardMetadata:
  name: Hosts \${{ env.name }}
  owner: ops
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: ${height} }
    markdown: \${{ values.note }}
`;
}
