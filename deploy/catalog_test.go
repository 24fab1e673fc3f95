package deploy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChooseImage: the option image replaces the catalogue's image,
// "local" picks the one scripts/images/build makes, and a database
// without one says which there are.
func TestChooseImage(t *testing.T) {
	pg, err := LookupDatabase("postgres")
	require.NoError(t, err)
	for option, want := range map[string]string{"": "postgres:17", "registry.example/pg:16": "registry.example/pg:16", LocalImage: "dbarena.local/postgres:15"} {
		got, err := pg.Image.Choose(option, "")
		require.NoError(t, err)
		require.Equal(t, want, got, "option %q", option)
	}
	got, err := pg.Image.Choose("", "16")
	require.NoError(t, err)
	require.Equal(t, "postgres:16", got, "deploy.version is the tag")
	_, err = pg.Image.Choose(LocalImage, "16")
	require.ErrorContains(t, err, `option image: local runs dbarena.local/postgres:15, whatever deploy.version says: leave version "16" out`)
	mysql, err := LookupDatabase("mysql")
	require.NoError(t, err)
	got, err = mysql.Image.Choose(LocalImage, "")
	require.NoError(t, err)
	require.Equal(t, "dbarena.local/mariadb:10.11", got, "Debian's MySQL is MariaDB")
	cass, err := LookupDatabase("cassandra")
	require.NoError(t, err)
	_, err = cass.Image.Choose(LocalImage, "")
	require.ErrorContains(t, err, "option image: local: no local image of cassandra; scripts/images/build makes dbarena.local/mariadb:10.11 (for mariadb)")
}
